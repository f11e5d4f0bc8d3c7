import { createReads } from '../../../apps/accounts/src/domain/reads'
import { mentionedAccounts } from '../../../apps/accounts/src/domain/statuses'
import { statusAudience } from '../../../apps/accounts/src/federation/audience'
import type { Stack } from '../../stack'
import { startStack } from '../../stack'
import type { TestUser } from './helpers'
import { post, signUp } from './helpers'

/**
 * Every keyset listing reads its page from an index, in the listing's order: the query each endpoint really runs
 * (captured from knex) is explained with sorting and sequential scans priced out, and its plan must read the
 * index made for it, with no Sort. A listing without a matching index sorts or walks the whole table in id order,
 * and so costs more the deeper the page (docs/performance.md, "Queries").
 */
let stack: Stack
let alice: TestUser
let bob: TestUser
let admin: TestUser
let statusId: string
let listId: string
const captured: { sql: string; bindings: unknown[] }[] = []

beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack)
  bob = await signUp(stack)
  const carol = await signUp(stack)
  const dave = await signUp(stack)
  const adminUser = await stack.createUser({ username: 'boss', role: 'admin' })
  const adminToken = await stack.userToken('read write follow admin:read', adminUser)
  admin = {
    ...alice,
    get: (path: string) => stack.api().get(path).set('Authorization', `Bearer ${adminToken}`),
  } as TestUser
  await bob.post(`/api/v1/accounts/${alice.id}/follow`).expect(200)
  await alice.post(`/api/v1/accounts/${bob.id}/follow`).expect(200)
  await alice.post(`/api/v1/accounts/${carol.id}/block`).expect(200)
  await alice.post(`/api/v1/accounts/${dave.id}/mute`).expect(200)
  statusId = await post(alice, `hello @${bob.username}`)
  await post(alice, { status: 'for followers', visibility: 'private' })
  await bob.post(`/api/v1/statuses/${statusId}/favourite`).expect(200)
  await bob.post(`/api/v1/statuses/${statusId}/reblog`).expect(200)
  await bob.post(`/api/v1/statuses/${statusId}/bookmark`).expect(200)
  const list = await alice.post('/api/v1/lists', { title: 'friends' }).expect(200)
  listId = list.body.id
  await alice.post(`/api/v1/lists/${listId}/accounts`, { account_ids: [bob.id] }).expect(200)
  await stack.drain()
  stack.accounts.ctx.db.on('query', (q: { sql: string; bindings?: unknown[] }) =>
    captured.push({ sql: q.sql, bindings: q.bindings ?? [] }),
  )
}, 120_000)
afterAll(() => stack?.stop())

/**
 * The listing query an endpoint ran: the one that ends in `order by … limit`. No other statement may be the start
 * of it: that is the listing's builder run before its page was set (awaited, or returned from an async function,
 * which awaits it), reading every row of the listing.
 */
async function listingQuery(request: () => PromiseLike<{ status: number }>) {
  captured.length = 0
  expect((await request()).status).toBe(200)
  const found = captured.filter((q) => /order by .+ limit \$\d+\s*$/i.test(q.sql))
  expect(found).toHaveLength(1)
  const listing = found[0]!
  expect(captured.filter((q) => q !== listing && listing.sql.startsWith(q.sql)).map((q) => q.sql)).toEqual([])
  return listing
}

interface PlanNode {
  'Node Type': string
  'Index Name'?: string
  'Index Cond'?: string
  'Relation Name'?: string
  Alias?: string
  'Plan Rows': number
  Plans?: PlanNode[]
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)]

/** The plan of a captured query, sequential scans priced out, and sorting too unless `sorts`. */
async function plan(query: { sql: string; bindings: unknown[] }, sorts = false): Promise<PlanNode[]> {
  return stack.accounts.ctx.db.transaction(async (trx) => {
    if (!sorts) await trx.raw('SET LOCAL enable_sort = off')
    await trx.raw('SET LOCAL enable_seqscan = off')
    // knex reports pg's numbered placeholders, in the order of the bindings.
    const sql = query.sql.replace(/\$\d+/g, '?')
    const { rows } = await trx.raw(`EXPLAIN (FORMAT JSON) ${sql}`, query.bindings as never)
    return nodes(rows[0]['QUERY PLAN'][0].Plan as PlanNode)
  })
}

/**
 * The plan Postgres makes of a captured query as things are, nothing priced out; with `staleTable`, as it makes it
 * when that table's statistics are from before its rows were inserted (analyzed while empty, as after a migration
 * or a bulk import, until autovacuum's next ANALYZE).
 */
async function planAsIs(
  query: { sql: string; bindings: unknown[] },
  staleTable?: string,
): Promise<PlanNode[]> {
  const db = stack.accounts.ctx.db
  if (staleTable) await db.raw('UPDATE pg_class SET reltuples = 0 WHERE oid = ?::regclass', [staleTable])
  try {
    const { rows } = await db.raw(
      `EXPLAIN (FORMAT JSON) ${query.sql.replace(/\$\d+/g, '?')}`,
      query.bindings as never,
    )
    return nodes(rows[0]['QUERY PLAN'][0].Plan as PlanNode)
  } finally {
    if (staleTable) await db.raw(`ANALYZE ${staleTable}`)
  }
}

const listings: [string, string, () => PromiseLike<{ status: number }>][] = [
  [
    "an account's statuses, anonymous",
    'statuses_account_id_id_index',
    () => stack.api().get(`/api/v1/accounts/${alice.id}/statuses`),
  ],
  [
    "an account's statuses, a follower",
    'statuses_account_id_id_index',
    () => bob.get(`/api/v1/accounts/${alice.id}/statuses`),
  ],
  [
    "an account's statuses, a page deep",
    'statuses_account_id_id_index',
    () => bob.get(`/api/v1/accounts/${alice.id}/statuses?max_id=${statusId}`),
  ],
  [
    "an account's own statuses",
    'statuses_account_id_id_index',
    () => alice.get(`/api/v1/accounts/${alice.id}/statuses`),
  ],
  ['the public timeline', 'statuses_public_id', () => bob.get('/api/v1/timelines/public')],
  ['the local timeline', 'statuses_local_public_id', () => bob.get('/api/v1/timelines/public?local=true')],
  [
    'the remote public timeline',
    'statuses_remote_public_id',
    () => bob.get('/api/v1/timelines/public?remote=true'),
  ],
  ['notifications', 'notifications_account_id_id_index', () => alice.get('/api/v1/notifications')],
  [
    'followers',
    'follows_target_account_id_id_index',
    () => bob.get(`/api/v1/accounts/${alice.id}/followers`),
  ],
  ['following', 'follows_account_id_id', () => bob.get(`/api/v1/accounts/${alice.id}/following`)],
  ['blocks', 'blocks_account_id_id', () => alice.get('/api/v1/blocks')],
  ['mutes', 'mutes_account_id_id', () => alice.get('/api/v1/mutes')],
  [
    'follow requests',
    'follow_requests_target_account_id_id_index',
    () => alice.get('/api/v1/follow_requests'),
  ],
  ['favourites', 'favourites_account_id_id', () => bob.get('/api/v1/favourites')],
  ['bookmarks', 'bookmarks_account_id_id', () => bob.get('/api/v1/bookmarks')],
  ['favourited_by', 'favourites_status_id_id', () => alice.get(`/api/v1/statuses/${statusId}/favourited_by`)],
  ['reblogged_by', 'statuses_reblog_of_id_id', () => alice.get(`/api/v1/statuses/${statusId}/reblogged_by`)],
  [
    'list members',
    'list_accounts_list_id_account_id_unique',
    () => alice.get(`/api/v1/lists/${listId}/accounts`),
  ],
  ['admin accounts', 'accounts_pkey', () => admin.get('/api/v1/admin/accounts')],
  ['admin IP blocks', 'ip_blocks_pkey', () => admin.get('/api/v1/admin/ip_blocks')],
]

it.each(listings)('%s: its page read in order from %s, no Sort', async (_name, index, request) => {
  const steps = await plan(await listingQuery(request))
  expect(steps.map((n) => n['Node Type'])).not.toContain('Sort')
  expect(steps.map((n) => n['Node Type'])).not.toContain('Incremental Sort')
  expect(steps.map((n) => n['Index Name'])).toContain(index)
})

it("an account's statuses check the author's suspension and the viewer's blocks and mutes once, not per row", async () => {
  const query = await listingQuery(() => bob.get(`/api/v1/accounts/${alice.id}/statuses`))
  expect(query.sql).not.toMatch(/suspended_at/)
  expect(query.sql).not.toMatch(/"blocks"|"mutes"/)
})

/**
 * Statements every post runs that look accounts up (the accounts it mentions, its remote audience) must find them
 * by an index condition, as the number of known remote accounts grows into the hundreds of thousands: a condition
 * ORed across two kinds of lookup made Postgres walk every account instead.
 */
it('writes no list into the text of a statement, so that pages of every length share their statements', async () => {
  captured.length = 0
  for (const limit of [1, 2, 3, 5, 8, 13, 20, 40]) {
    await bob.get(`/api/v1/timelines/public?limit=${limit}`).expect(200)
    await bob.get(`/api/v1/accounts/${alice.id}/statuses?limit=${limit}`).expect(200)
    await alice.get(`/api/v1/notifications?limit=${limit}`).expect(200)
    await alice
      .get(
        `/api/v1/accounts/relationships?${[alice, bob]
          .slice(0, 1 + (limit % 2))
          .map((u) => `id[]=${u.id}`)
          .join('&')}`,
      )
      .expect(200)
  }
  // knex writes `in ($1, $2, …)`, one placeholder per item: a text, and a statement to prepare, per length.
  expect(captured.map((q) => q.sql).filter((sql) => /\bin \(\$\d+, \$\d+/i.test(sql))).toEqual([])
  expect(captured.some((q) => q.sql.includes('= ANY($'))).toBe(true)
})

describe('the accounts a post looks up', () => {
  beforeAll(async () => {
    const db = stack.accounts.ctx.db
    await db.raw(
      `INSERT INTO accounts (username, domain, uri)
       SELECT 'remote' || n, 'host' || (n % 100) || '.example', 'https://host' || (n % 100) || '.example/users/' || n
       FROM generate_series(1, 3000) AS n`,
    )
    await db.raw('ANALYZE accounts')
  })

  /**
   * The statements `work` ran on accounts, each with the most rows its plan expects to read from accounts in one
   * step (an index scan, a bitmap of one): a walk of every account expects thousands, a lookup one per key.
   */
  async function accountReads(work: () => Promise<unknown>) {
    captured.length = 0
    await work()
    const reads = captured.filter((q) => /from "accounts"/.test(q.sql))
    expect(reads.length).toBeGreaterThan(0)
    return Promise.all(
      reads.map(async (q) => {
        // Sorting stays in: a lookup's few rows are sorted, where a listing must come in index order.
        const steps = await plan(q, true)
        const onAccounts = steps.filter((n) => n['Relation Name'] === 'accounts').flatMap(nodes)
        return { sql: q.sql, rows: Math.max(...onAccounts.map((n) => n['Plan Rows'])) }
      }),
    )
  }

  it("keeps a blocked domain's accounts out of a listing by reading each row's author, not by listing their ids", async () => {
    const db = stack.accounts.ctx.db
    const remote = async (username: string, domain: string) => {
      const [account] = await db('accounts')
        .insert({ username, domain, uri: `https://${domain}/users/${username}` })
        .returning('id')
      const [status] = await db('statuses')
        .insert({
          account_id: account.id,
          text: `by ${username}@${domain}`,
          visibility: 'public',
          uri: `https://${domain}/statuses/${username}`,
        })
        .returning('id')
      return status.id as string
    }
    const covered = [await remote('sam', 'host7.example'), await remote('sue', 'Deep.Host7.example:8443')]
    const spared = [await remote('sid', 'xhost7.example'), await remote('sal', 'host70.example')]
    await alice.post('/api/v1/domain_blocks', { domain: 'host7.example' }).expect(200)

    const listing = await listingQuery(() => alice.get('/api/v1/timelines/public?remote=true'))
    // 30 of the 3,000 remote accounts are on host7.example: none of their ids travels with the listing.
    expect(JSON.stringify(listing.bindings).length).toBeLessThan(200)
    const steps = await plan(listing)
    expect(steps.map((n) => n['Node Type'])).not.toContain('Sort')
    expect(steps.map((n) => n['Index Name'])).toContain('statuses_remote_public_id')
    // The author's row, by its primary key, once per row.
    const authorReads = steps.filter(
      (n) => n['Relation Name'] === 'accounts' && n['Alias'] === 'hidden_by_domain',
    )
    expect(authorReads.map((n) => [n['Index Name'], n['Plan Rows']])).toEqual([['accounts_pkey', 1]])

    const shown = (await alice.get('/api/v1/timelines/public?remote=true&limit=40').expect(200)).body.map(
      (s: { id: string }) => s.id,
    )
    expect(shown).toEqual(expect.arrayContaining(spared))
    expect(shown.filter((id: string) => covered.includes(id))).toEqual([])
    await alice.delete('/api/v1/domain_blocks').send({ domain: 'host7.example' }).expect(200)
  })

  it('searches account names by prefix as ranges of their indexes', async () => {
    captured.length = 0
    const found = await alice.get('/api/v1/accounts/search?q=Remote12').expect(200)
    expect(found.body.map((a: { username: string }) => a.username)).toContain('remote12')
    const search = captured.filter((q) => q.sql.includes('chr(1114111)'))
    expect(search).toHaveLength(1)
    const ranges = (await plan(search[0]!, true)).filter((n) => n['Index Cond']?.includes('>='))
    expect(ranges.map((n) => n['Index Name']).sort()).toEqual([
      'accounts_display_name_prefix',
      'accounts_username_prefix',
    ])
  })

  it('finds the accounts a post mentions by their index, one lookup per mention, whatever the statistics say', async () => {
    captured.length = 0
    const found = await mentionedAccounts(
      stack.accounts.ctx.db,
      `hi @${bob.username} and @Remote7@HOST7.example`,
    )
    expect(found.map((a) => `${a.username}@${a.domain ?? ''}`).sort()).toEqual(
      [`${bob.username}@`, 'remote7@host7.example'].sort(),
    )
    expect(captured).toHaveLength(1)
    // With statistics from before the 3,000 accounts, a join of the mentions with accounts read every account
    // (in the bench, once per mention).
    for (const stale of [undefined, 'accounts']) {
      const onAccounts = (await planAsIs(captured[0]!, stale)).filter(
        (n) => n['Relation Name'] === 'accounts',
      )
      // A lookup by key has an Index Cond; a walk of the index has none.
      expect(onAccounts.map((n) => [n['Node Type'], n['Index Name'], !!n['Index Cond']])).toEqual([
        ['Index Scan', 'accounts_username_domain_lower', true],
      ])
    }
  })

  it("finds a post's remote audience from its followers and the accounts named, not by walking every account", async () => {
    const [remote] = await stack.accounts.ctx.db('accounts').where({ username: 'remote9' }).select('id')
    for (const visibility of ['public', 'direct'] as const) {
      const reads = await accountReads(() =>
        statusAudience(stack.accounts.ctx.db, {
          accountId: alice.id,
          visibility,
          mentionedAccountIds: [remote.id],
          inReplyToAccountId: null,
        }),
      )
      expect(reads.filter((r) => r.rows > 100)).toEqual([])
    }
  })
  it("reads whether a new status's author has a watcher with the status, from the index of such follows", async () => {
    const db = stack.accounts.ctx.db
    const bobStatus = await post(bob, 'watched?')
    // 3,000 followers of bob, none of whom asked to hear of his posts; then one who did.
    await db.raw(
      `INSERT INTO follows (account_id, target_account_id)
       SELECT id, ? FROM accounts WHERE domain IS NOT NULL AND username LIKE 'remote%'`,
      [bob.id],
    )
    await db.raw('ANALYZE follows')
    captured.length = 0
    const reads = createReads(db)
    expect((await reads.status(bobStatus))?.id).toBe(bobStatus)
    expect(await reads.watched(bob.id)).toBe(false)
    // One statement: the status brings it along.
    expect(captured).toHaveLength(1)
    for (const stale of [undefined, 'follows']) {
      const onFollows = (await planAsIs(captured[0]!, stale)).filter((n) => n['Relation Name'] === 'follows')
      expect(onFollows.map((n) => [n['Index Name'], !!n['Index Cond']])).toEqual([['follows_watched', true]])
    }

    await db('follows')
      .where('id', db('follows').where({ target_account_id: bob.id }).max('id'))
      .update({ notify: true })
    expect(await createReads(db).watched(bob.id)).toBe(true)
    await db('follows').where({ target_account_id: bob.id }).whereNot({ account_id: alice.id }).delete()
  })
})
