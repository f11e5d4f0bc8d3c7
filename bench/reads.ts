import autocannon from 'autocannon'
import type { BenchUser, Fixtures } from './fixtures'
import { call } from './fixtures'
import type { BenchStack } from './stack'
import { percentiles, round } from './write-path'

/** `GET /api/v1/accounts/:id` through the gateway and straight to accounts, at `connections` connections. */
export async function gatewayRatio(
  stack: BenchStack,
  viewer: BenchUser,
  connections: number,
  seconds: number,
) {
  const path = `/api/v1/accounts/${viewer.accountId}`
  const run = async (base: string) => {
    const r = await autocannon({
      url: `${base}${path}`,
      headers: { authorization: `Bearer ${viewer.token}` },
      connections,
      duration: seconds,
    })
    if (r.non2xx || r.errors) throw new Error(`${base}${path}: ${r.non2xx} non-2xx, ${r.errors} errors`)
    return { requestsPerSecond: Math.round(r.requests.average), p50Ms: r.latency.p50, p99Ms: r.latency.p99 }
  }
  // Alternated twice, so that a burst of load from elsewhere on the machine does not land on one side only.
  const direct1 = await run(stack.accountsUrl)
  const gateway1 = await run(stack.gatewayUrl)
  const gateway2 = await run(stack.gatewayUrl)
  const direct2 = await run(stack.accountsUrl)
  const direct = (direct1.requestsPerSecond + direct2.requestsPerSecond) / 2
  const gateway = (gateway1.requestsPerSecond + gateway2.requestsPerSecond) / 2
  return {
    connections,
    directPerSecond: Math.round(direct),
    gatewayPerSecond: Math.round(gateway),
    ratio: round(gateway / direct),
    directP99Ms: Math.max(direct1.p99Ms, direct2.p99Ms),
    gatewayP99Ms: Math.max(gateway1.p99Ms, gateway2.p99Ms),
  }
}

/**
 * Page 1 of an account's statuses against a page 20,000 rows deep, measured right after 20,040 statuses were
 * inserted in one statement, with no ANALYZE (autovacuum held off on the table meanwhile; the result says that no
 * analyze ran). Requests
 * alternate between the two pages, as a follower of the author, straight to accounts.
 */
export async function depthScenario(
  stack: BenchStack,
  fixtures: Fixtures,
  o: { author: BenchUser; viewer: BenchUser; rows: number; requests: number },
) {
  const db = fixtures.db
  const follow = await call(
    `${stack.gatewayUrl}/api/v1/accounts/${o.author.accountId}/follow`,
    'POST',
    o.viewer.token,
  )
  if (follow.status !== 200) throw new Error(`follow: ${follow.status}`)
  // No ANALYZE, and none by autovacuum either while this runs: the plans are those of stale statistics.
  await db.raw('ALTER TABLE statuses SET (autovacuum_enabled = off)')
  const insertStarted = performance.now()
  await db.raw(
    `INSERT INTO statuses (account_id, text, visibility, language)
     SELECT ?, 'bulk status ' || n, CASE WHEN n % 10 = 0 THEN 'private' ELSE 'public' END, 'en'
     FROM generate_series(1, ?) AS n`,
    [o.author.accountId, o.rows + 40],
  )
  const insertMs = performance.now() - insertStarted
  const [{ id: deepMaxId }] = await db('statuses')
    .where({ account_id: o.author.accountId })
    .orderBy('id', 'desc')
    .offset(o.rows)
    .limit(1)
    .select('id')
  const url = (query: string) => `${stack.accountsUrl}/api/v1/accounts/${o.author.accountId}/statuses${query}`
  const time = async (query: string) => {
    const started = performance.now()
    const res = await call(url(query), 'GET', o.viewer.token)
    if (res.status !== 200 || !Array.isArray(res.body) || res.body.length !== 20)
      throw new Error(`statuses${query}: ${res.status}`)
    return performance.now() - started
  }
  const first: number[] = []
  const deep: number[] = []
  const firstStarted = performance.now()
  for (let i = 0; i < o.requests; i++) {
    first.push(await time(''))
    deep.push(await time(`?max_id=${deepMaxId}`))
  }
  const secondsAfterInsert = round((performance.now() - firstStarted) / 1000)
  await db.raw('ALTER TABLE statuses RESET (autovacuum_enabled)')
  const analyzed = await db.raw(
    `SELECT last_analyze, last_autoanalyze FROM pg_stat_user_tables WHERE schemaname = 'accounts' AND relname = 'statuses'`,
  )
  const page1 = percentiles(first)
  const pageDeep = percentiles(deep)
  return {
    rows: o.rows + 40,
    insertMs: Math.round(insertMs),
    secondsOfMeasurement: secondsAfterInsert,
    analyzedMeanwhile: Boolean(analyzed.rows[0]?.last_analyze || analyzed.rows[0]?.last_autoanalyze),
    page1Ms: page1,
    deepPageMs: pageDeep,
    ratio: round(pageDeep.p50 / page1.p50),
  }
}
