import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createDatabase } from '@roost/db'
import type { Knex } from '@roost/db'
import { issuerOf } from '@roost/auth'
import { createSubscriberKeys } from '@roost/testing'
import { SCHEMA } from '../apps/accounts/src/service'
import { loadSigningKeys } from '../apps/accounts/src/oauth/keys'
import { hashPassword } from '../apps/accounts/src/domain/password-hashes'
import type { BenchStack } from './stack'

export interface BenchUser {
  username: string
  userId: string
  accountId: string
  token: string
}

/** An HTTP agent with keep-alive, as a load generator holds its connections. */
export const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes
type Json = any

/** One request with a JSON body (or none); resolves with the status and the parsed body. */
export function call(
  url: string,
  method: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const data = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          let parsed: unknown = text
          try {
            parsed = JSON.parse(text)
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body: parsed })
        })
      },
    )
    req.on('error', reject)
    req.end(data)
  })
}

/**
 * Test users made straight in the accounts database (rows as `createUser` writes them, one password hash for
 * all) with tokens signed by the stack's key for rows in `oauth_access_tokens`: thousands in seconds, where sign-up
 * and the password grant would spend 60 ms of scrypt each.
 */
export async function createFixtures(stack: BenchStack) {
  const db: Knex = createDatabase(stack.databaseUrl, SCHEMA, { min: 0, max: 4 })
  const app = await call(`${stack.gatewayUrl}/api/v1/apps`, 'POST', undefined, {
    client_name: 'bench',
    redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
    scopes: 'read write follow push',
  })
  if (app.status !== 200) throw new Error(`POST /api/v1/apps: ${app.status}`)
  const keys = await loadSigningKeys(stack.secrets.OAUTH_SIGNING_KEYS!, issuerOf(stack.env.PUBLIC_URL!))
  const password = await hashPassword('bench password')
  let made = 0

  return {
    db,
    /** `count` new users with tokens (scopes read write follow push). */
    async users(count: number, prefix = 'u'): Promise<BenchUser[]> {
      const names = Array.from({ length: count }, () => `${prefix}${++made}`)
      return db.transaction(async (trx) => {
        const accounts: { id: string; username: string }[] = await trx('accounts')
          .insert(names.map((username) => ({ username })))
          .returning(['id', 'username'])
        const users: { id: string; account_id: string }[] = await trx('users')
          .insert(
            accounts.map((a) => ({
              account_id: a.id,
              email: `${a.username}@bench.test`,
              encrypted_password: password,
              locale: 'en',
              role: 'user',
              approved: true,
              confirmed_at: trx.fn.now(),
            })),
          )
          .returning(['id', 'account_id'])
        const tokens: { id: string; user_id: string }[] = await trx('oauth_access_tokens')
          .insert(
            users.map((u) => ({
              application_id: app.body.id,
              user_id: u.id,
              scopes: 'read write follow push',
            })),
          )
          .returning(['id', 'user_id'])
        const userOf = new Map(users.map((u) => [u.account_id, u.id]))
        const accountOf = new Map(users.map((u) => [u.id, u.account_id]))
        const tokenOf = new Map<string, string>()
        for (const t of tokens)
          tokenOf.set(
            t.user_id,
            await keys.sign({
              jti: t.id,
              scope: 'read write follow push',
              client_id: app.body.client_id,
              sub: t.user_id,
              // As accounts signs user tokens: the streaming service reads the account from here.
              account_id: accountOf.get(t.user_id),
            }),
          )
        return accounts.map((a) => ({
          username: a.username,
          accountId: a.id,
          userId: userOf.get(a.id)!,
          token: tokenOf.get(userOf.get(a.id)!)!,
        }))
      })
    },
    /** A Web Push subscription (aes128gcm, every alert) for each user, pointing at `sink`. */
    async subscribe(users: BenchUser[], sink: PushSink) {
      for (const user of users) {
        const keys = createSubscriberKeys()
        const res = await call(`${stack.gatewayUrl}/api/v1/push/subscription`, 'POST', user.token, {
          subscription: {
            endpoint: sink.endpointFor(user.username),
            keys: { p256dh: keys.p256dh, auth: keys.auth },
            standard: true,
          },
          data: {
            alerts: { mention: true, follow: true, favourite: true, reblog: true, poll: true },
            policy: 'all',
          },
        })
        if (res.status !== 200)
          throw new Error(`push subscription: ${res.status} ${JSON.stringify(res.body)}`)
      }
    },
    close: () => db.destroy(),
  }
}
export type Fixtures = Awaited<ReturnType<typeof createFixtures>>

/**
 * A push service stand-in that answers 201 to everything and records when each message for each endpoint
 * arrived (decryption is not what is measured; the tests check it).
 */
export async function startPushSink() {
  const arrivals = new Map<string, number[]>()
  let count = 0
  const waiters: { target: number; resolve: () => void }[] = []
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const at = performance.now()
      const name = (req.url ?? '').split('/').pop() ?? ''
      let list = arrivals.get(name)
      if (!list) arrivals.set(name, (list = []))
      list.push(at)
      count++
      res.writeHead(201).end()
      for (const w of waiters.filter((w) => count >= w.target)) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve()
      }
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    endpointFor: (username: string) => `${origin}/push/${username}`,
    arrivals,
    get count() {
      return count
    },
    reset() {
      arrivals.clear()
      count = 0
    },
    /** Resolves when `target` messages have arrived since the last reset, or rejects after `timeoutMs`. */
    until(target: number, timeoutMs: number) {
      if (count >= target) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`push sink: ${count} of ${target} messages after ${timeoutMs} ms`)),
          timeoutMs,
        )
        waiters.push({
          target,
          resolve: () => {
            clearTimeout(timer)
            resolve()
          },
        })
      })
    },
    close: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}
export type PushSink = Awaited<ReturnType<typeof startPushSink>>
