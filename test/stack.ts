import os from 'node:os'
import path from 'node:path'
import { exportJWK, generateKeyPair } from 'jose'
import { Queue } from 'bullmq'
import request from 'supertest'
import webpush from 'web-push'
import { bullPrefix, CONSUMERS, createRedis, pendingJobs } from '@roost/events'
import {
  createTestDatabase,
  createRedisPrefix,
  freePort,
  reservePort,
  startPgBouncer,
  TEST_REDIS_URL,
} from '@roost/testing'
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
  /**
   * Copies of each process (gateway, accounts, accounts worker, push, push worker, streaming) against the one
   * database and Redis prefix; default ROOST_TEST_COPIES or 1. The gateways take the service copies in turn (their
   * upstream variables list every copy); `api()` talks to the gateway copies in turn.
   */
  copies?: number
  /**
   * Every process reaches Postgres through PgBouncer in transaction mode (packages/testing, startPgBouncer), with
   * DB_DIRECT_URL for what needs a session; default ROOST_TEST_PGBOUNCER=1. A number is PgBouncer's pool size.
   */
  pgbouncer?: boolean | number
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
  // Held until the gateway binds it, after everything else has started (packages/testing, reservePort).
  const gatewayPort = await reservePort()
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    PUBLIC_URL: `http://${options.publicHost ?? '127.0.0.1'}:${gatewayPort.port}`,
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
  const copies = options.copies ?? Number(process.env.ROOST_TEST_COPIES ?? 1)
  const pooled = options.pgbouncer ?? process.env.ROOST_TEST_PGBOUNCER === '1'
  const pgbouncer = pooled
    ? await startPgBouncer(env.DATABASE_URL!, ['accounts', 'push'], {
        poolSize: typeof pooled === 'number' ? pooled : undefined,
      })
    : undefined
  // Through PgBouncer, each service has its own database entry (its search_path); env.DATABASE_URL stays the direct
  // one, for tests that read the database themselves.
  const accountsEnv = pgbouncer
    ? {
        ...env,
        DATABASE_URL: pgbouncer.urlFor('accounts'),
        DB_DIRECT_URL: env.DATABASE_URL!,
        PREPARED_STATEMENTS: 'false',
      }
    : env
  const pushEnv = pgbouncer
    ? {
        ...env,
        DATABASE_URL: pgbouncer.urlFor('push'),
        DB_DIRECT_URL: env.DATABASE_URL!,
        PREPARED_STATEMENTS: 'false',
      }
    : env
  const times = <T>(make: (i: number) => Promise<T>) =>
    Promise.all(Array.from({ length: copies }, (_, i) => make(i)))
  const allAccounts = await times(() => createAccountsService(loadAccountsConfig(accountsEnv)))
  const accountsUrls = await Promise.all(allAccounts.map(async (a) => `http://127.0.0.1:${await a.start(0)}`))
  const accounts = allAccounts[0]!
  const accountsUrl = accountsUrls[0]!
  const allAccountsWorkers =
    options.accountsWorker === false
      ? []
      : await times(() => createAccountsWorker(loadAccountsWorkerConfig(accountsEnv)))
  for (const worker of allAccountsWorkers) await worker.start(0)
  const accountsWorker = allAccountsWorkers[0]
  const allPush = await times(() =>
    createPushService(loadPushConfig({ ...pushEnv, ACCOUNTS_URL: accountsUrl })),
  )
  const pushUrls = await Promise.all(allPush.map(async (p) => `http://127.0.0.1:${await p.start(0)}`))
  const push = allPush[0]!
  const pushUrl = pushUrls[0]!
  const allPushWorkers =
    options.pushWorker === false
      ? []
      : await times(() => createPushWorker(loadPushConfig({ ...pushEnv, ACCOUNTS_URL: accountsUrl })))
  for (const worker of allPushWorkers) await worker.start(0)
  const pushWorker = allPushWorkers[0]
  const allStreaming = await times(() =>
    createStreamingService(loadStreamingConfig({ ...env, ACCOUNTS_URL: accountsUrl })),
  )
  const streamingUrls = await Promise.all(
    allStreaming.map(async (s) => `http://127.0.0.1:${await s.start(0)}`),
  )
  const streaming = allStreaming[0]!
  const streamingUrl = streamingUrls[0]!
  const gatewayEnv = {
    ...env,
    ACCOUNTS_URL: accountsUrls.join(','),
    PUSH_URL: pushUrls.join(','),
    STREAMING_URL: streamingUrls.join(','),
  }
  const allGateways = await times(() => createGateway(loadGatewayConfig(gatewayEnv)))
  const gatewayUrls: string[] = []
  for (const [i, g] of allGateways.entries()) {
    let port: number
    if (i === 0) {
      port = gatewayPort.port
      await gatewayPort.release()
    } else port = await freePort()
    await g.start(port)
    gatewayUrls.push(`http://127.0.0.1:${port}`)
  }
  const gateway = allGateways[0]!
  const url = env.PUBLIC_URL!
  // With copies, requests go to the gateway copies in turn (PUBLIC_URL names the first).
  let nextGateway = 0
  const gatewayUrl = () => (copies > 1 ? gatewayUrls[nextGateway++ % copies]! : url)
  const api = () => request(gatewayUrl())
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
    /**
     * The environment of each service's processes: `env`, or through PgBouncer its own database entry with
     * DB_DIRECT_URL (what a worker started as a process of its own must be given).
     */
    serviceEnv: { accounts: accountsEnv, push: pushEnv },
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
    /** Every copy of each process (one each unless `copies`), the first being the one named above. */
    copies: {
      /** How many copies of each process the stack runs (`copies`, ROOST_TEST_COPIES). */
      count: copies,
      accounts: allAccounts,
      accountsUrls,
      accountsWorkers: allAccountsWorkers,
      push: allPush,
      pushUrls,
      pushWorkers: allPushWorkers,
      streaming: allStreaming,
      streamingUrls,
      gateways: allGateways,
      gatewayUrls,
    },
    /**
     * Whether `count` clients listen on `channel` over all streaming copies, each copy subscribed to it (a client
     * may be on any copy: the gateways take them in turn).
     */
    isLive(channel: string, count = 1) {
      let total = 0
      for (const copy of allStreaming) {
        let onCopy = 0
        while (onCopy < count && copy.hub.isLive(channel, onCopy + 1)) onCopy++
        total += onCopy
      }
      return total >= count
    },
    /** Holds back every accounts worker copy (a test that needs nothing but the request to do the work). */
    async pauseAccountsWorkers() {
      for (const worker of allAccountsWorkers) await worker.pause()
    },
    resumeAccountsWorkers() {
      for (const worker of allAccountsWorkers) worker.resume()
    },
    /** Stops the outbox relay of every accounts worker copy: activities wait in the outbox until `startRelays`. */
    async stopRelays() {
      for (const worker of allAccountsWorkers) await worker.relay.stop()
    },
    startRelays() {
      for (const worker of allAccountsWorkers) worker.relay.start()
    },
    /** A counter of the push workers' /metrics, summed over the copies: `name{label="value"…}` lines that match. */
    pushWorkerCounter: (name: string, labels: Record<string, string> = {}) =>
      metricsCounter(
        allPushWorkers.map((worker) => worker.url),
        name,
        labels,
      ),
    /** PgBouncer in front of the database, when the stack runs through it. */
    pgbouncer,
    /** supertest against the gateway (its copies in turn). */
    api,
    /** The gateway's URL for the next request (its copies in turn, as `api()` takes them). */
    gatewayUrl,

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
        for (const worker of allAccountsWorkers) await worker.relay.flush()
        quietCounts = (await quiet()) ? quietCounts + 1 : 0
        if (quietCounts === 2) return
        if (Date.now() > deadline) throw new Error('the activities pipeline did not become quiet')
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },

    async stop() {
      for (const g of allGateways) await g.stop()
      for (const s of allStreaming) await s.stop()
      for (const w of allPushWorkers) await w.stop()
      for (const p of allPush) await p.stop()
      for (const w of allAccountsWorkers) await w.stop()
      for (const { queue } of queues) await queue.close()
      await queueConnection.quit().catch(() => queueConnection.disconnect())
      for (const a of allAccounts) await a.stop()
      await pgbouncer?.stop()
    },
  }
  return stack
}

export type Stack = Awaited<ReturnType<typeof startStack>>

/** A counter of processes' /metrics, summed over them: the `name{label="value"…}` lines that match `labels`. */
export async function metricsCounter(urls: string[], name: string, labels: Record<string, string> = {}) {
  let total = 0
  for (const url of urls) {
    const text = await (await fetch(`${url}/metrics`)).text()
    for (const line of text.split('\n')) {
      const match = line.match(/^(\w+)(?:\{([^}]*)\})? (\S+)$/)
      if (!match || match[1] !== name) continue
      const has = Object.entries(labels).every(([k, v]) => match[2]?.includes(`${k}="${v}"`))
      if (has) total += Number(match[3])
    }
  }
  return total
}

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
