import { createStatus } from '../../apps/accounts/src/domain/statuses'
import { favourite } from '../../apps/accounts/src/domain/favourites'
import type { AccountRow, StatusRow } from '../../apps/accounts/src/db/rows'
import { home } from '../../apps/accounts/src/feeds/store'
import { storeActor } from '../../apps/accounts/src/federation/remote-accounts'
import { statusUri } from '../../apps/accounts/src/federation/uris'
import { urlsOf } from '../../apps/accounts/src/entities/account'
import { Queue } from 'bullmq'
import { bullPrefix, createRedis, QUEUES } from '@roost/events'
import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { startMiniPeer } from '../federation/mini-peer'
import type { MiniPeer } from '../federation/mini-peer'
import { startWorkerProcess, startWorkerProcesses, stopWorkerProcess } from './worker-process'
import type { WorkerProcess } from './worker-process'

const STATUSES = 100
const FANS = 9 // 100 status.created (one watcher each) + 900 favourite.created = 1,000 activities, 1,000 notifications
// The author also has a follower on another server (a mini-peer): each status is one federation delivery, 100 in all.

// With ROOST_TEST_COPIES=2 two worker processes share the activities, and one of them is killed while the other
// goes on: what the dead one held is taken over (by the other, or by its restart), still each once.
let stack: Stack
let workers: WorkerProcess[] = []
let peer: MiniPeer
let redis: ReturnType<typeof createRedis>
let deliveries: Queue
beforeAll(async () => {
  stack = await startStack({
    accountsWorker: false,
    env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' },
  })
  peer = await startMiniPeer()
  redis = createRedis(stack.env.REDIS_URL!, { forWorker: true })
  deliveries = new Queue(QUEUES.deliveries, {
    connection: redis,
    prefix: bullPrefix(stack.env.REDIS_PREFIX!),
  })
})
afterAll(async () => {
  for (const worker of workers) await stopWorkerProcess(worker, 'SIGKILL')
  await deliveries.close()
  await redis.quit()
  await stack.stop()
  await peer.stop()
})

it('SIGKILL of a worker in the middle of 1,000 activities, then a restart: every notification and delivery once, every feed complete', async () => {
  const db = stack.accounts.ctx.db
  const author = await stack.createUser()
  const watcher = await stack.createUser()
  const fans = await Promise.all(Array.from({ length: FANS }, () => stack.createUser()))
  await db('follows').insert({
    account_id: watcher.accountId,
    target_account_id: author.accountId,
    notify: true,
  })
  const remoteFan = await storeActor(db, peer.actorJson(peer.actor('remote_fan')))
  await db('follows').insert({ account_id: remoteFan.id, target_account_id: author.accountId })
  const authorRow: AccountRow = await db('accounts').where({ id: author.accountId }).first()
  // Both feeds are ready (as once the worker has handled their sign-up's home_feed.created).
  const feeds = stack.accounts.ctx.feeds
  for (const user of [author, watcher]) await feeds.markReady(home(user.accountId))

  // The activities are written as requests write them (domain functions, rows and outbox in one transaction),
  // straight into the database so that all 1,000 are waiting before the worker starts.
  const statuses: StatusRow[] = []
  for (let i = 0; i < STATUSES; i++)
    statuses.push(
      await db.transaction(
        async (trx) =>
          (
            await createStatus(trx, authorRow, {
              text: `post ${i}`,
              spoilerText: '',
              sensitive: false,
              visibility: 'public',
              language: null,
              mediaIds: [],
            })
          ).status,
      ),
    )
  await db.transaction(async (trx) => {
    for (const fan of fans) for (const status of statuses) await favourite(trx, fan.accountId, status)
  })
  // Besides each new user's home_feed.created (docs/feeds.md), written at sign-up.
  const activities = await db('outbox')
    .where({ queue: 'activities' })
    .whereNot({ job_name: 'home_feed.created' })
    .count('* as n')
  expect(Number(activities[0]!.n)).toBe(1000)

  const count = async () => Number((await db('notifications').count('* as n'))[0]!.n)
  workers = await startWorkerProcesses(stack, 'accounts')
  while ((await count()) < 150) await new Promise((resolve) => setTimeout(resolve, 5))
  await stopWorkerProcess(workers[0]!, 'SIGKILL')
  const atKill = await count()
  expect(atKill).toBeLessThan(1000) // it died in the middle
  // A delivery whose job was running at the kill may have reached the peer without its job finishing: the only ones
  // that may arrive twice (ActivityPub deliveries are at least once; the peer drops a repeated activity id). The dead
  // worker's jobs stay active until their lock lapses, seconds from now.
  const mayRepeat = new Set(
    (await deliveries.getActive()).map((job) => String(JSON.parse(job.data.body).object.id)),
  )

  workers[0] = await startWorkerProcess(stack)
  await stack.drain(120_000)
  // drain() leaves out deliveries put back for a busy host (work for later): the dead worker's slots stay taken
  // until its delivery jobs are taken over, and the activities, a hundred in a batch, are done long before.
  const createdIds = () =>
    peer.received
      .filter((r) => r.activity.type === 'Create')
      .map((r) => String((r.activity.object as { id: string }).id))
  await eventually(async () => new Set(createdIds()).size === STATUSES, 90_000)
  for (const worker of workers) await stopWorkerProcess(worker, 'SIGTERM')

  const notifications: { type: string; account_id: string; activity_id: string }[] = await db('notifications')
  expect(notifications).toHaveLength(1000)
  expect(notifications.filter((n) => n.type === 'status')).toHaveLength(STATUSES)
  expect(notifications.filter((n) => n.type === 'favourite')).toHaveLength(STATUSES * FANS)
  expect(new Set(notifications.map((n) => `${n.type}:${n.account_id}:${n.activity_id}`)).size).toBe(1000)
  // One notification.created per notification, published once.
  const events: { payload: { notificationId: string }; published_at: Date | null }[] = await db(
    'outbox',
  ).where({
    job_name: 'notification.created',
  })
  expect(events).toHaveLength(1000)
  expect(events.every((e) => e.published_at)).toBe(true)
  expect(new Set(events.map((e) => e.payload.notificationId)).size).toBe(1000)
  // The remote follower's server got each status's Create, once but for a delivery cut short by the kill.
  const created = createdIds()
  expect(new Set(created)).toEqual(
    new Set(statuses.map((s) => statusUri(urlsOf(stack.accounts.ctx.config), author.username, s.id))),
  )
  const repeated = created.filter((id, i) => created.indexOf(id) !== i)
  expect(repeated.filter((id) => !mayRepeat.has(id))).toEqual([])
  // The author's and the watcher's home feeds hold the 100 posts, each once.
  const posted = statuses.map((s) => s.id).reverse()
  expect(await feeds.ids(home(author.accountId))).toEqual(posted)
  expect(await feeds.ids(home(watcher.accountId))).toEqual(posted)
}, 240_000)
