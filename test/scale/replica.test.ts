import pg from 'pg'
import { startReplicatedPostgres } from '@roost/testing'
import type { ReplicatedPostgres } from '@roost/testing'
import { migrateAccounts } from '../../apps/accounts/src/service'
import { migratePush } from '../../apps/push/src/service'
import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { home } from '../../apps/accounts/src/feeds/store'
import * as outbox from '../../apps/accounts/src/outbox/outbox'

/**
 * The read replica (docs/operations.md, "Read replica") on a real streaming replica: a primary cluster and a
 * `pg_basebackup -R` copy of it. Replay on the replica is paused to make it lag: the routed reads do not see a write
 * made meanwhile, the reads that must see their own writes do; after replay resumes, the routed reads see it too.
 * When the replica stops, a routed read running there runs again on the primary, and the next ones go there.
 */
let postgres: ReplicatedPostgres
let stack: Stack
let replicaAdmin: pg.Client
let alice: TestUser
let carol: TestUser
let dave: TestUser
let anonymous: (path: string) => ReturnType<ReturnType<Stack['api']>['get']>

beforeAll(async () => {
  postgres = await startReplicatedPostgres()
  const admin = new pg.Client({ connectionString: postgres.primaryUrl() })
  await admin.connect()
  await admin.query('CREATE DATABASE roost')
  await admin.end()
  await migrateAccounts(postgres.primaryUrl('roost'))
  await migratePush(postgres.primaryUrl('roost'))
  stack = await startStack({
    env: { DATABASE_URL: postgres.primaryUrl('roost'), REPLICA_DATABASE_URL: postgres.replicaUrl('roost') },
  })
  replicaAdmin = new pg.Client({ connectionString: postgres.replicaUrl('roost') })
  replicaAdmin.on('error', () => {})
  await replicaAdmin.connect()
  alice = await signUp(stack, { username: 'alice' })
  carol = await signUp(stack, { username: 'carol' })
  dave = await signUp(stack, { username: 'dave' })
  anonymous = (path: string) => stack.api().get(path)
}, 60_000)
afterAll(async () => {
  await replicaAdmin?.end().catch(() => {})
  await stack?.stop()
  await postgres?.stop()
})

const profile = (body: object) =>
  stack
    .api()
    .patch('/api/v1/accounts/update_credentials')
    .set('Authorization', `Bearer ${alice.token}`)
    .send(body)
    .expect(200)
/** Drops a home feed and has the worker rebuild it, as for a user back after USER_ACTIVE_DAYS (current.ts). */
async function regenerated(accountId: string): Promise<string[]> {
  const { ctx } = stack.accounts
  await ctx.feeds.drop(home(accountId))
  await ctx.feeds.withClaim(home(accountId), () =>
    outbox.add(ctx.db, { event: 'home_feed.missing', accountId }),
  )
  await stack.drain()
  return ctx.feeds.ids(home(accountId))
}
/** Waits until the replica has replayed everything written on the primary so far. */
async function replayed() {
  const primary = new pg.Client({ connectionString: postgres.primaryUrl('roost') })
  await primary.connect()
  const { rows } = await primary.query('SELECT pg_current_wal_lsn() AS lsn')
  await primary.end()
  await eventually(async () => {
    const res = await replicaAdmin.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [
      rows[0].lsn,
    ])
    return res.rows[0].done
  })
}
const contents = (res: { body: unknown }) => JSON.stringify(res.body)
const routedReads = () => [
  anonymous('/api/v1/timelines/public'),
  anonymous('/api/v1/timelines/tag/lagging'),
  anonymous(`/api/v1/accounts/${alice.id}/statuses`),
  carol.get('/api/v1/timelines/public'),
  carol.get(`/api/v1/accounts/${alice.id}/statuses`),
  carol.get('/api/v2/search?q=lagging&type=statuses'),
  anonymous('/api/v1/directory?order=new'),
  anonymous('/users/alice/outbox?page=true').set('Accept', 'application/activity+json'),
]

it('routed reads come from the replica, lagging while replay is paused; read-your-writes reads from the primary', async () => {
  await profile({ discoverable: true, display_name: 'first' })
  const first = await post(alice, 'first lagging #lagging @carol')
  await dave.post(`/api/v1/accounts/${alice.id}/follow`).expect(200)
  // Once replayed, every routed read has the first status.
  await eventually(async () =>
    (await Promise.all(routedReads())).every((res) => contents(res).includes('first')),
  )
  // And everything written so far (dave's follow too, which the regeneration below reads) is replayed.
  await replayed()

  await replicaAdmin.query('SELECT pg_wal_replay_pause()')
  await eventually(async () => {
    const { rows } = await replicaAdmin.query('SELECT pg_get_wal_replay_pause_state() AS state')
    return rows[0].state === 'paused'
  })
  // Written on the primary while the replica lags: a status and a new display name (the directory shows names).
  const second = await post(alice, 'second lagging #lagging @carol')
  await profile({ display_name: 'second' })

  // The replica lags: each routed read answers, correctly as of the replica, without the second status.
  for (const res of await Promise.all(routedReads())) {
    expect(res.status).toBe(200)
    expect(contents(res)).toContain('first')
    expect(contents(res)).not.toContain('second')
  }
  // Read-your-writes: alice's own statuses, and alice's routed reads right after her write, come from the primary.
  expect(contents(await alice.get(`/api/v1/accounts/${alice.id}/statuses`).expect(200))).toContain('second')
  expect(contents(await alice.get('/api/v1/timelines/tag/lagging').expect(200))).toContain('second')
  // Reads that are not routed (a status, relationships) always come from the primary.
  await carol.get(`/api/v1/statuses/${second}`).expect(200)
  await alice.post(`/api/v1/accounts/${carol.id}/follow`).expect(200)
  const relationships = await alice.get(`/api/v1/accounts/relationships?id[]=${carol.id}`).expect(200)
  expect(relationships.body[0].following).toBe(true)
  // The worker's feed regeneration reads its candidates from the replica: dave's rebuilt feed lacks the second status
  // (which fan-out had put in it from the primary).
  await stack.drain()
  expect(await stack.accounts.ctx.feeds.ids(home(dave.id))).toContain(second)
  expect(await regenerated(dave.id)).toEqual([first])

  await replicaAdmin.query('SELECT pg_wal_replay_resume()')
  await eventually(async () => {
    const all = await Promise.all(routedReads())
    return all.every((res) => res.status === 200 && contents(res).includes('second'))
  })
  expect(await regenerated(dave.id)).toEqual([second, first])
})

it('a routed read running on the replica when it stops runs again on the primary; later ones go there too', async () => {
  await post(alice, 'third lagging #lagging @carol')
  await profile({ display_name: 'third' })
  await replicaAdmin.query('SELECT pg_wal_replay_resume()')
  // A lock on statuses, replayed on the replica, holds a routed read there mid-query (on a pooled connection).
  const locker = new pg.Client({ connectionString: postgres.primaryUrl('roost') })
  await locker.connect()
  try {
    await locker.query('BEGIN')
    await locker.query('LOCK TABLE accounts.statuses IN ACCESS EXCLUSIVE MODE')
    // The lock's WAL record is not flushed (so not streamed) before a commit; another session's commit flushes it.
    const flusher = new pg.Client({ connectionString: postgres.primaryUrl('roost') })
    await flusher.connect()
    await flusher.query('SELECT txid_current()')
    await flusher.end()
    await eventually(async () => {
      const { rows } = await replicaAdmin.query(
        "SELECT 1 FROM pg_locks WHERE relation = 'accounts.statuses'::regclass AND mode = 'AccessExclusiveLock'",
      )
      return rows.length > 0
    })
    const running = anonymous('/api/v1/timelines/public').then((res) => res)
    await eventually(async () => {
      const { rows } = await replicaAdmin.query(
        "SELECT 1 FROM pg_stat_activity WHERE backend_type = 'client backend' AND wait_event_type = 'Lock'",
      )
      return rows.length > 0
    })
    await replicaAdmin.end()
    postgres.stopReplica()
    await locker.query('ROLLBACK')
    const res = await running
    expect(res.status).toBe(200)
    expect(contents(res)).toContain('third')
  } finally {
    await locker.end()
  }
  for (const res of await Promise.all(routedReads())) {
    expect(res.status).toBe(200)
    expect(contents(res)).toContain('third')
  }
})
