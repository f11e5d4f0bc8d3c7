import { fork } from 'node:child_process'
import path from 'node:path'
import autocannon from 'autocannon'
import { HEAP_OPTIONS } from '../scripts/dev/heap'
import type { BenchUser, Fixtures } from './fixtures'
import { call } from './fixtures'
import { cpuNow } from './procstat'
import type { BenchStack } from './stack'
import { PORTS } from './stack'
import { percentiles, round } from './write-path'

/** A bare proxy in front of the accounts service (bench/proxy-baseline.ts), its own process. */
export async function startProxyBaseline(stack: BenchStack) {
  const port = PORTS.proxyBaseline
  const child = fork(path.join(__dirname, 'proxy-baseline.ts'), [String(port), stack.accountsUrl], {
    // The heap options of the gateway (and of every Roost process), so that neither runs with a young generation
    // of a different size; profiled with the Roost processes (BENCH_CPU_PROF) so that the two hops' profiles can be
    // set side by side.
    execArgv: [
      ...HEAP_OPTIONS.split(' '),
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`]
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve())
    child.once('exit', (code) => reject(new Error(`the proxy baseline exited (${code})`)))
  })
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () => new Promise<void>((resolve) => child.once('exit', () => resolve()).kill('SIGTERM')),
  }
}
export type ProxyBaseline = Awaited<ReturnType<typeof startProxyBaseline>>

/**
 * `GET /api/v1/accounts/:id` through the gateway, straight to accounts, and through a bare `http-proxy` in front of
 * accounts (`startProxyBaseline`), at `connections` connections: requests/s of each, and the CPU per request of the
 * gateway process and of the bare proxy's, so that the gateway's hop can be set against the least a proxy hop costs.
 */
export async function gatewayRatio(
  stack: BenchStack,
  viewer: BenchUser,
  proxy: ProxyBaseline,
  connections: number,
  seconds: number,
) {
  const path = `/api/v1/accounts/${viewer.accountId}`
  const gatewayPid = stack.watched.find((w) => w.name === 'gateway')!.pid
  const run = async (base: string, pid?: number) => {
    const before = pid ? cpuNow([{ name: 'hop', pid }]).hop! : 0
    const r = await autocannon({
      url: `${base}${path}`,
      headers: { authorization: `Bearer ${viewer.token}` },
      connections,
      duration: seconds,
    })
    if (r.non2xx || r.errors) throw new Error(`${base}${path}: ${r.non2xx} non-2xx, ${r.errors} errors`)
    const cpuMs = pid ? cpuNow([{ name: 'hop', pid }]).hop! - before : 0
    return {
      requestsPerSecond: Math.round(r.requests.average),
      p99Ms: r.latency.p99,
      cpuMsPerRequest: cpuMs / r.requests.total,
    }
  }
  // Alternated, so that a burst of load from elsewhere on the machine does not land on one side only.
  const direct1 = await run(stack.accountsUrl)
  const gateway1 = await run(stack.gatewayUrl, gatewayPid)
  const proxy1 = await run(proxy.url, proxy.pid)
  const proxy2 = await run(proxy.url, proxy.pid)
  const gateway2 = await run(stack.gatewayUrl, gatewayPid)
  const direct2 = await run(stack.accountsUrl)
  const mean = (a: number, b: number) => (a + b) / 2
  const direct = mean(direct1.requestsPerSecond, direct2.requestsPerSecond)
  const gateway = mean(gateway1.requestsPerSecond, gateway2.requestsPerSecond)
  const bare = mean(proxy1.requestsPerSecond, proxy2.requestsPerSecond)
  return {
    connections,
    directPerSecond: Math.round(direct),
    gatewayPerSecond: Math.round(gateway),
    ratio: round(gateway / direct),
    directP99Ms: Math.max(direct1.p99Ms, direct2.p99Ms),
    gatewayP99Ms: Math.max(gateway1.p99Ms, gateway2.p99Ms),
    bareProxyPerSecond: Math.round(bare),
    bareProxyRatio: round(bare / direct),
    gatewayCpuMsPerRequest:
      Math.round(mean(gateway1.cpuMsPerRequest, gateway2.cpuMsPerRequest) * 1000) / 1000,
    bareProxyCpuMsPerRequest: Math.round(mean(proxy1.cpuMsPerRequest, proxy2.cpuMsPerRequest) * 1000) / 1000,
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

/**
 * What the number of known remote accounts does to a post and a listing: a post mentioning a local and a remote
 * account (POST /api/v1/statuses) and the public timeline of a user who blocks two domains, straight to accounts,
 * timed on an instance that knows only the bench's accounts and again after `remoteAccounts` remote accounts were
 * inserted (and analysed): a quarter on one large server the user blocks, crowd.example, the rest on 1,000 others. A
 * post's mentions are looked up by key and a listing checks each author against the blocked domains, so both ratios
 * should stay near 1 (docs/performance.md, "Queries").
 *
 * And what popularity does to a status (GET /api/v1/statuses/:id): timed with no favourites and boosts, and again
 * once `favourites` of those accounts favourited it and `boosts` boosted it. Its counters are kept, not counted, so
 * that ratio should stay near 1 too (docs/performance.md, "Counters").
 */
export async function knownAccountsScenario(
  stack: BenchStack,
  fixtures: Fixtures,
  o: {
    viewer: BenchUser
    mentioned: BenchUser
    remoteAccounts: number
    favourites: number
    boosts: number
    requests: number
  },
) {
  const db = fixtures.db
  // A remote account the posts mention too, known (and fresh, so no post looks it up again on its server).
  await db('accounts').insert({
    username: 'friend',
    domain: 'host5.example',
    uri: 'https://host5.example/users/friend',
    fetched_at: db.fn.now(),
  })
  for (const domain of ['host7.example', 'crowd.example']) {
    const block = await call(`${stack.accountsUrl}/api/v1/domain_blocks`, 'POST', o.viewer.token, { domain })
    if (block.status !== 200) throw new Error(`domain block: ${block.status}`)
  }
  const popular = await call(`${stack.accountsUrl}/api/v1/statuses`, 'POST', o.mentioned.token, {
    status: 'a status many will favourite and boost',
  })
  if (popular.status !== 200) throw new Error(`popular status: ${popular.status}`)
  const popularId = (popular.body as { id: string }).id
  const timed = async (url: string, method: string, body?: unknown) => {
    const started = performance.now()
    const res = await call(url, method, o.viewer.token, body)
    if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status}`)
    return performance.now() - started
  }
  const measure = async () => {
    const posting: number[] = []
    const listing: number[] = []
    const showing: number[] = []
    // The first few of each warm the connections and the caches up; they are not counted.
    for (let i = -5; i < o.requests; i++) {
      const postMs = await timed(`${stack.accountsUrl}/api/v1/statuses`, 'POST', {
        status: `hello @${o.mentioned.username} and @friend@host5.example ${i}`,
      })
      const listingMs = await timed(`${stack.accountsUrl}/api/v1/timelines/public`, 'GET')
      const statusMs = await timed(`${stack.accountsUrl}/api/v1/statuses/${popularId}`, 'GET')
      if (i < 0) continue
      posting.push(postMs)
      listing.push(listingMs)
      showing.push(statusMs)
    }
    return {
      postMs: percentiles(posting),
      publicTimelineMs: percentiles(listing),
      popularStatusMs: percentiles(showing),
    }
  }
  const before = await measure()
  const insertStarted = performance.now()
  await db.raw(
    `INSERT INTO accounts (username, domain, uri)
     SELECT 'remote' || n, host, 'https://' || host || '/users/' || n
     FROM generate_series(1, ?) AS n,
          LATERAL (SELECT CASE WHEN n % 4 = 0 THEN 'crowd.example' ELSE 'host' || (n % 1000) || '.example' END) AS h(host)`,
    [o.remoteAccounts],
  )
  await db.raw('ANALYZE accounts')
  // As the federation inbox records them: a favourite row per account, a boost a status of its own. In statements
  // of 10,000 rows: the inbox writes one at a time, and the counters' triggers hold a statement's rows in memory.
  for (let done = 0; done < o.favourites; done += 10_000)
    await db.raw(
      `INSERT INTO favourites (account_id, status_id)
       SELECT id, ? FROM accounts WHERE domain IS NOT NULL ORDER BY id OFFSET ? LIMIT ?`,
      [popularId, done, Math.min(10_000, o.favourites - done)],
    )
  await db.raw(
    `INSERT INTO statuses (account_id, reblog_of_id, text, visibility, uri)
     SELECT id, ?, '', 'public', uri || '/boosts/1' FROM accounts WHERE domain IS NOT NULL ORDER BY id DESC LIMIT ?`,
    [popularId, o.boosts],
  )
  const insertMs = performance.now() - insertStarted
  const after = await measure()
  const shown = (await call(`${stack.accountsUrl}/api/v1/statuses/${popularId}`, 'GET', o.viewer.token))
    .body as {
    favourites_count: number
    reblogs_count: number
  }
  if (shown.favourites_count !== o.favourites || shown.reblogs_count !== o.boosts)
    throw new Error(
      `the popular status shows ${shown.favourites_count} favourites, ${shown.reblogs_count} boosts`,
    )
  return {
    remoteAccounts: o.remoteAccounts,
    favourites: o.favourites,
    boosts: o.boosts,
    insertMs: Math.round(insertMs),
    before,
    after,
    postRatio: round(after.postMs.p50 / before.postMs.p50),
    publicTimelineRatio: round(after.publicTimelineMs.p50 / before.publicTimelineMs.p50),
    popularStatusRatio: round(after.popularStatusMs.p50 / before.popularStatusMs.p50),
  }
}
