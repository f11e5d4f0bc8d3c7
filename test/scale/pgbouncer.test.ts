import { startScaleStack, roundTrip } from './helpers'

/**
 * Every process through PgBouncer in transaction mode with a pool of 4 server connections (docs/operations.md,
 * "PgBouncer"): unnamed statements, LISTEN on DB_DIRECT_URL, one database entry per service schema. A transaction
 * that counted on session state (a named statement, a SET, a session advisory lock) would land on another
 * server connection and fail here.
 */
let scale: Awaited<ReturnType<typeof startScaleStack>>
beforeAll(async () => {
  scale = await startScaleStack({ pgbouncer: 4 })
}, 60_000)
afterAll(async () => {
  await scale?.stop()
})

it('a post with a mention: one notification, one push and one federation delivery, all through PgBouncer', async () => {
  const { stack } = scale
  expect(stack.pgbouncer).toBeDefined()
  await roundTrip(scale, 'pooled')
  // The pooled connections really served the work: PgBouncer counts the transactions of each database entry.
  const pg = await import('pg')
  const admin = new pg.default.Client({
    connectionString: `postgres://postgres@127.0.0.1:${stack.pgbouncer!.port}/pgbouncer`,
  })
  await admin.connect()
  try {
    const { rows } = await admin.query({ text: 'SHOW STATS', queryMode: 'simple' } as never)
    const transactions = (schema: string) =>
      Number(
        (rows as { database: string; total_xact_count: string }[]).find((r) =>
          r.database.endsWith(`_${schema}`),
        )?.total_xact_count ?? 0,
      )
    expect(transactions('accounts')).toBeGreaterThan(20)
    expect(transactions('push')).toBeGreaterThan(0)
  } finally {
    await admin.end()
  }
})
