import { randomBytes } from 'node:crypto'
import net from 'node:net'
import pg from 'pg'
import { Redis } from 'ioredis'

/** Where tests find Postgres and Redis: the machine's own servers unless told otherwise. */
export const TEST_POSTGRES_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** Set by global-setup for every test file of the run. */
export const runId = () => {
  const id = process.env.ROOST_TEST_RUN
  if (!id) throw new Error('ROOST_TEST_RUN is not set: run the tests through jest (npm test)')
  return id
}
export const templateDatabase = () => `roost_test_${runId()}_template`

export const randomSuffix = () => randomBytes(4).toString('hex')

export function databaseUrl(name: string): string {
  const url = new URL(TEST_POSTGRES_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/** Runs SQL on the server's maintenance database (CREATE/DROP DATABASE cannot run in a transaction). */
export async function adminQuery(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL })
  await client.connect()
  try {
    return await client.query(sql)
  } finally {
    await client.end()
  }
}

/** A fresh database for one stack, copied from the run's migrated template (fast: no migrations per test). */
export async function createTestDatabase(): Promise<string> {
  const name = `roost_test_${runId()}_${randomSuffix()}`
  await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${templateDatabase()}"`)
  return databaseUrl(name)
}

/** A Redis key namespace of its own for one stack: every key and BullMQ queue lives under it. */
export const createRedisPrefix = () => `roost-test-${runId()}-${randomSuffix()}`

/**
 * A free loopback port for a server that must know its port before it starts (the gateway, whose port is in
 * PUBLIC_URL), held by a listening server of ours until `release()`: a stack draws its gateway's port seconds before
 * the gateway binds it, and any other test drawing a port meanwhile finds this one taken instead of drawing it too
 * (which made a CI run fail with EADDRINUSE). Ports are drawn below Linux's ephemeral range (32768–60999): a port the
 * kernel handed out and took back could be given to an outgoing connection (to Postgres, to Redis) before the
 * server binds it, which made a test fail with EADDRINUSE in CI too.
 */
export async function reservePort(): Promise<{ port: number; release: () => Promise<void> }> {
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * 22_000)
    // fetch refuses the Fetch standard's "bad ports" ("fetch failed: bad port"); 10080 is the one in this range.
    if (port === 10_080) continue
    const server = net.createServer()
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => resolve(true))
    })
    if (!bound) continue
    server.unref() // a stack that failed to start before releasing it leaves nothing to keep its process alive
    return { port, release: () => new Promise((resolve) => server.close(() => resolve())) }
  }
}

/** A free loopback port, for a server that binds it at once (reservePort, released). */
export async function freePort(): Promise<number> {
  const { port, release } = await reservePort()
  await release()
  return port
}

/** Fails with a message that says what is missing, rather than a stack of connection errors. */
export async function checkServers(): Promise<void> {
  const problems: string[] = []
  try {
    await adminQuery('select 1')
  } catch (err) {
    problems.push(`PostgreSQL does not answer at ${TEST_POSTGRES_URL} (${(err as Error).message}).`)
  }
  const redis = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  try {
    await redis.connect()
    await redis.ping()
  } catch (err) {
    problems.push(`Redis does not answer at ${TEST_REDIS_URL} (${(err as Error).message}).`)
  } finally {
    redis.disconnect()
  }
  if (problems.length)
    throw new Error(
      `${problems.join('\n')}\nThe tests need a real PostgreSQL (user postgres, trust auth) and Redis. ` +
        'Start them, or point TEST_DATABASE_URL / TEST_REDIS_URL at running ones.',
    )
}
