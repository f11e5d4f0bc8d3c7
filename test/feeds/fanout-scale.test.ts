import { createDatabase } from '@roost/db'
import type { Knex } from '@roost/db'
import { createRedis } from '@roost/events'
import { SCHEMA } from '../../apps/accounts/src/service'
import { FANOUT_PAGE } from '../../apps/accounts/src/feeds/context'
import type { Feeds } from '../../apps/accounts/src/feeds/context'
import { fanOut } from '../../apps/accounts/src/feeds/fanout'
import { createFeedStore } from '../../apps/accounts/src/feeds/store'
import type { Feed, FeedItem } from '../../apps/accounts/src/feeds/store'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from './helpers'

/**
 * Fan-out at scale (issue #10, item 5; docs/feeds.md): one status to an account with 100,000 followers runs in
 * bounded memory because followers are read a page at a time and each page is written in one pipeline. Checked by
 * structure, not by time or heap size: every query the fan-out runs answers at most a page of rows, every
 * pipeline carries at most a page of feeds, and together they reach every follower.
 */
const FOLLOWERS = 100_000

let stack: Stack
let db: Knex
let redis: ReturnType<typeof createRedis>
beforeAll(async () => {
  // No accounts worker: the fan-out below is the only one, run here with its queries and pipelines watched.
  stack = await startStack({ accountsWorker: false, pushWorker: false })
  db = createDatabase(stack.env.DATABASE_URL!, SCHEMA)
  redis = createRedis(stack.env.REDIS_URL!)
})
afterAll(async () => {
  await db?.destroy()
  redis?.disconnect()
  await stack.stop()
})

it('fans one status out to 100,000 followers a page at a time: no query answers more than a page, no pipeline holds more', async () => {
  const author = await signUp(stack)
  // 100,000 active local followers, written in three statements.
  await db.raw(
    `WITH a AS (
       INSERT INTO accounts (username) SELECT 'fan_' || g FROM generate_series(1, ?) g RETURNING id, username
     ), u AS (
       INSERT INTO users (account_id, email, encrypted_password, confirmed_at)
       SELECT id, username || '@scale.test', 'x', now() FROM a RETURNING account_id
     )
     INSERT INTO follows (account_id, target_account_id) SELECT account_id, ? FROM u`,
    [FOLLOWERS, author.id],
  )
  const statusId = await post(author, 'to everyone at once')

  let largestAnswer = 0
  let queries = 0
  db.on('query-response', (response: unknown) => {
    queries++
    const rows = Array.isArray(response) ? response : (response as { rows?: unknown[] })?.rows
    largestAnswer = Math.max(largestAnswer, rows?.length ?? 0)
  })
  const real = createFeedStore(redis, stack.env.REDIS_PREFIX!)
  let widestPipeline = 0
  const reached = new Set<string>()
  const store = {
    ...real,
    async insertEverywhere(feeds: Feed[], item: FeedItem) {
      widestPipeline = Math.max(widestPipeline, feeds.length)
      for (const feed of feeds) reached.add(feed.id)
      return real.insertEverywhere(feeds, item)
    },
  }
  const feeds: Feeds = { db, store, activeDays: 7 }

  await fanOut(feeds, await db('statuses').where({ id: statusId }).first())

  // Every follower and the author were offered the status…
  expect(reached.size).toBe(FOLLOWERS + 1)
  // …a page at a time: no query answered more rows than a page, no pipeline carried more feeds than a page.
  expect(widestPipeline).toBeLessThanOrEqual(FANOUT_PAGE)
  expect(largestAnswer).toBeLessThanOrEqual(FANOUT_PAGE)
  // At least one query per page of followers, so the pages are real ones and not one read cut up afterwards.
  expect(queries).toBeGreaterThanOrEqual(FOLLOWERS / FANOUT_PAGE)
}, 600_000)
