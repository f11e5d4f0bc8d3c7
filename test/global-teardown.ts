import { Redis } from 'ioredis'
import { adminQuery, runId, TEST_REDIS_URL } from '@roost/testing'

/** Drops this run's databases and Redis keys. */
export default async function globalTeardown() {
  const run = runId()
  const { rows } = await adminQuery(
    `SELECT datname FROM pg_database WHERE datname LIKE 'roost_test_${run}_%'`,
  )
  for (const { datname } of rows) await adminQuery(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
  const redis = new Redis(TEST_REDIS_URL)
  try {
    const stream = redis.scanStream({ match: `*roost-test-${run}-*`, count: 1000 })
    for await (const keys of stream) if ((keys as string[]).length) await redis.unlink(...(keys as string[]))
  } finally {
    await redis.quit().catch(() => redis.disconnect())
  }
}
