import os from 'node:os'
import path from 'node:path'
import { exportJWK, generateKeyPair } from 'jose'
import { Queue } from 'bullmq'
import request from 'supertest'
import webpush from 'web-push'
import { bullPrefix, CONSUMERS, createRedis, pendingJobs } from '@roost/events'
import { createTestDatabase, createRedisPrefix, freePort, TEST_REDIS_URL } from '@roost/testing'
import { loadAccountsConfig, loadAccountsWorkerConfig } from '../apps/accounts/src/config'
import { createAccountsService } from '../apps/accounts/src/service'
import { createAccountsWorker } from '../apps/accounts/src/worker'
import type { NewUser } from '../apps/accounts/src/domain/users'
import { createUser } from '../apps/accounts/src/domain/users'
import { hashPassword } from '../apps/accounts/src/domain/password-hashes'
import { loadGatewayConfig } from '../apps/gateway/src/config'
import { createGateway } from '../apps/gateway/src/service'
import { loadPushConfig } from '../apps/push/src/config'
import { createPushService } from '../apps/push/src/service'
import { createPushWorker } from '../apps/push/src/worker'
import { loadStreamingConfig } from '../apps/streaming/src/config'
import { createStreamingService } from '../apps/streaming/src/service'

export interface StackOptions {
  /** Extra environment for every service (e.g. `{ OAUTH_PASSWORD_GRANT: 'false' }`). */
  env?: Record<string, string>
  /** false: no accounts worker in this process (a test runs it as a child process of its own). */
  accountsWorker?: boolean
  /** false: no push worker in this process (a fault test runs it as a child process of its own). */
  pushWorker?: boolean
  /** The host of PUBLIC_URL (default 127.0.0.1): `localhost` where an IP address will not do (WebAuthn's RP ID). */
  publicHost?: string
}

/** One signing key per test process: generating is cheap, but there is no reason to do it per stack. */
let signingKey: Promise<string> | undefined
const testSigningKeys = () =>
  (signingKey ??= generateKeyPair('ES256', { extractable: true }).then(async ({ privateKey }) =>
    JSON.stringify([{ ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'ES256' }]),
  ))

/**
 * The whole of Roost in this process: its own database (copied from the run's template) and Redis prefix,
 * accounts, its worker, push API, push worker, streaming and gateway on free ports. Tests talk to `stack.gateway` only, as
 * clients would, and wait for the workers with `drain()`.
 */
export async function startStack(options: StackOptions = {}) {
  const vapid = webpush.generateVAPIDKeys()
  const gatewayPort = await freePort()
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    PUBLIC_URL: `http://${options.publicHost ?? '127.0.0.1'}:${gatewayPort}`,
    DATABASE_URL: await createTestDatabase(),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: createRedisPrefix(),
    OAUTH_SIGNING_KEYS: await testSigningKeys(),
    OAUTH_PASSWORD_GRANT: 'true',
    // Tests register many apps from one address; the abuse tests switch the limits on with small numbers.
    RATE_LIMITS: 'off',
    SESSION_SECRET: 'test-session-secret-that-is-long-enough-0123456789',
    OTP_SECRET: 'test-otp-secret-that-is-long-enough-0123456789',
    GATEWAY_SECRET: 'test-gateway-secret-that-is-long-enough-0123456789',
    GATEWAY_METRICS_PORT: '0',
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    MEDIA_DIR: path.join(os.tmpdir(), 'roost-test-media', createRedisPrefix()),
    // Push receivers in tests listen on loopback; retries start at 100 ms so retry tests stay fast.
    PUSH_ALLOWED_PRIVATE_ADDRESSES: '127.0.0.0/8,::1',
    PUSH_RETRY_BASE_MS: '100',
    REMOTE_MEDIA_RETRY_BASE_MS: '100',
    // Sign-ups through the API get a working token at once, as most tests need: the mail tests (test/mail) switch
    // confirmation on, and give an SMTP server of their own. Without one, mail is written to files here.
    REQUIRE_EMAIL_CONFIRMATION: 'false',
    MAIL_DIR: path.join(os.tmpdir(), 'roost-test-mail', createRedisPrefix()),
    ...options.env,
  }
  const accounts = await createAccountsService(loadAccountsConfig(env))
  const accountsUrl = `http://127.0.0.1:${await accounts.start(0)}`
  const accountsWorker =
    options.accountsWorker === false ? undefined : await createAccountsWorker(loadAccountsWorkerConfig(env))
  await accountsWorker?.start(0)
  const push = await createPushService(loadPushConfig({ ...env, ACCOUNTS_URL: accountsUrl }))
  const pushUrl = `http://127.0.0.1:${await push.start(0)}`
  const pushWorker =
    options.pushWorker === false
      ? undefined
      : await createPushWorker(loadPushConfig({ ...env, ACCOUNTS_URL: accountsUrl }))
  await pushWorker?.start(0)
  const streaming = await createStreamingService(loadStreamingConfig({ ...env, ACCOUNTS_URL: accountsUrl }))
  const streamingUrl = `http://127.0.0.1:${await streaming.start(0)}`
  const gateway = await createGateway(
    loadGatewayConfig({ ...env, ACCOUNTS_URL: accountsUrl, PUSH_URL: pushUrl, STREAMING_URL: streamingUrl }),
  )
  await gateway.start(gatewayPort)
  const url = env.PUBLIC_URL!
  const api = () => request(url)
  const queueConnection = createRedis(env.REDIS_URL!, { forWorker: true })
  // Every queue a process consumes, watched here whichever process runs its worker.
  const queues = Object.values(CONSUMERS)
    .flat()
    .map((name) => ({
      name,
      queue: new Queue(name, { connection: queueConnection, prefix: bullPrefix(env.REDIS_PREFIX!) }),
    }))
  const db = accounts.ctx.db

  let users = 0
  const stack = {
    env,
    url,
    accountsUrl,
    pushUrl,
    streamingUrl,
    accounts,
    accountsWorker,
    push,
    /** The in-process push worker (absent with `pushWorker: false`). */
    get pushWorker() {
      if (!pushWorker) throw new Error('this stack runs its push worker in a process of its own')
      return pushWorker
    },
    streaming,
    gateway,
    /** supertest against the gateway. */
    api,

    /** Registers an app through the gateway. */
    async registerApp(scopes = 'read write follow push', redirectUris = 'urn:ietf:wg:oauth:2.0:oob') {
      const res = await api()
        .post('/api/v1/apps')
        .send({ client_name: 'Roost tests', redirect_uris: redirectUris, scopes })
        .expect(200)
      return res.body as { id: string; client_id: string; client_secret: string; vapid_key: string }
    },

    /** An app token (client_credentials) through the gateway. */
    async appToken(scope = 'read', app?: { client_id: string; client_secret: string }) {
      const client = app ?? (await stack.registerApp(scope))
      const res = await api()
        .post('/oauth/token')
        .send({
          grant_type: 'client_credentials',
          client_id: client.client_id,
          client_secret: client.client_secret,
          scope,
        })
        .expect(200)
      return res.body.access_token as string
    },

    /** A user made directly in the accounts database (sign-up has its own tests). */
    async createUser(user: Partial<Omit<NewUser, 'encryptedPassword'> & { password: string }> = {}) {
      const n = ++users
      const username = user.username ?? `user${n}`
      const full = { username, email: `${username}@example.test`, password: 'correct horse battery', ...user }
      const encryptedPassword = await hashPassword(full.password)
      const ids = await accounts.ctx.db.transaction((trx) => createUser(trx, { ...full, encryptedPassword }))
      return { ...full, ...ids }
    },

    /** A user token through the password grant (on in tests). */
    async userToken(scope = 'read write follow push', user?: { email: string; password: string }) {
      const who = user ?? (await stack.createUser())
      const client = await stack.registerApp(scope)
      const res = await api()
        .post('/oauth/token')
        .send({
          grant_type: 'password',
          client_id: client.client_id,
          client_secret: client.client_secret,
          username: who.email,
          password: who.password,
          scope,
        })
        .expect(200)
      return res.body.access_token as string
    },

    /**
     * Waits until the whole pipeline is quiet: every outbox row published, and no job of any queue a process
     * consumes (CONSUMERS in @roost/events) still to be done now (`pendingJobs`: activities handled, which may
     * write `notification.created` rows, published too, push jobs finished, …). Polls the outbox and the queues,
     * whichever process runs the workers; quiet twice in a row, as a job that ends between two counts may have
     * made work a count already passed.
     */
    async drain(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs
      const quiet = async () => {
        const [outbox] = await db('outbox').whereNull('published_at').count('* as n')
        if (Number(outbox!.n) > 0) return false
        for (const { name, queue } of queues) if (await pendingJobs(queue, name)) return false
        return true
      }
      for (let quietCounts = 0; ;) {
        await accountsWorker?.relay.flush()
        quietCounts = (await quiet()) ? quietCounts + 1 : 0
        if (quietCounts === 2) return
        if (Date.now() > deadline) throw new Error('the activities pipeline did not become quiet')
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },

    async stop() {
      await gateway.stop()
      await streaming.stop()
      await pushWorker?.stop()
      await push.stop()
      await accountsWorker?.stop()
      for (const { queue } of queues) await queue.close()
      await queueConnection.quit().catch(() => queueConnection.disconnect())
      await accounts.stop()
    },
  }
  return stack
}

export type Stack = Awaited<ReturnType<typeof startStack>>

/** The `Authorization` header of a bearer token, for supertest's `.set()` and fetch's `headers`. */
export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

/**
 * Polls `check` until it returns a truthy value (and returns it), or fails after the deadline: no fixed sleeps. The
 * deadline is generous because CI shares a loaded machine; a condition that holds returns as soon as it does.
 */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error('condition not met before the deadline')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
