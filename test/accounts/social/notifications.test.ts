import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { bullPrefix, createProducers, JOB_NAMES, QUEUES } from '@roost/events'
import { freePort } from '@roost/testing'
import { createOutboxRelay } from '../../../apps/accounts/src/outbox/relay'
import { startStack } from '../../stack'
import type { Stack } from '../../stack'
import { eventually, links, post, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
let queue: Queue
let redis: Redis
beforeAll(async () => {
  stack = await startStack()
  redis = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: null })
  queue = new Queue(QUEUES.notifications, { connection: redis, prefix: bullPrefix(stack.env.REDIS_PREFIX!) })
})
afterAll(async () => {
  await queue.close()
  redis.disconnect()
  await stack.stop()
})

/** The user's notifications as [type, sender], once the worker has handled every activity so far. */
async function types(user: TestUser) {
  await stack.drain()
  return (await user.get('/api/v1/notifications').expect(200)).body.map(
    (n: { type: string; account: { id: string } }) => [n.type, n.account.id],
  )
}

/** The published `notification.created` jobs for a notification id. */
const jobsFor = async (notificationId: string) =>
  (await queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized'])).filter(
    (j) => j.name === JOB_NAMES.notificationCreated && j.data.notificationId === notificationId,
  )

describe('which actions notify (§7.5)', () => {
  it('follow, follow_request, authorize, favourite, reblog, mention and status', async () => {
    const [a, b] = [await signUp(stack), await signUp(stack)]
    await a.post(`/api/v1/accounts/${b.id}/follow`, { notify: true }).expect(200)
    expect(await types(b)).toEqual([['follow', a.id]])

    const id = await post(b, 'a post')
    expect(await types(a)).toEqual([['status', b.id]])
    await a.post(`/api/v1/statuses/${id}/favourite`).expect(200)
    await a.post(`/api/v1/statuses/${id}/favourite`).expect(200)
    await a.post(`/api/v1/statuses/${id}/reblog`).expect(200)
    await post(a, `hey @${b.username}`)
    await stack.drain()
    const list = (await b.get('/api/v1/notifications').expect(200)).body
    expect(list.map((n: { type: string }) => n.type)).toEqual(['mention', 'reblog', 'favourite', 'follow'])
    expect(list[2]).toMatchObject({ account: { id: a.id }, status: { id, content: '<p>a post</p>' } })
    expect(list[3]).not.toHaveProperty('status')
    expect(list[0].group_key).toBe(`ungrouped-${list[0].id}`)

    const locked = await signUp(stack)
    await stack.accounts.ctx.db('accounts').where({ id: locked.id }).update({ locked: true })
    await a.post(`/api/v1/accounts/${locked.id}/follow`).expect(200)
    expect(await types(locked)).toEqual([['follow_request', a.id]])
    await locked.post(`/api/v1/follow_requests/${a.id}/authorize`).expect(200)
    // The request's notification goes with the request (Mastodon: dependent on its activity); the follow stays.
    expect(await types(locked)).toEqual([['follow', a.id]])
  })

  it('undoing an activity takes its notification back: unfollow, unfavourite, unreblog, withdrawn or rejected request', async () => {
    const [a, b] = [await signUp(stack), await signUp(stack)]
    const id = await post(b, 'to be liked')
    await a.post(`/api/v1/accounts/${b.id}/follow`).expect(200)
    await a.post(`/api/v1/statuses/${id}/favourite`).expect(200)
    await a.post(`/api/v1/statuses/${id}/reblog`).expect(200)
    expect(await types(b)).toEqual([
      ['reblog', a.id],
      ['favourite', a.id],
      ['follow', a.id],
    ])
    await a.post(`/api/v1/statuses/${id}/unreblog`).expect(200)
    await a.post(`/api/v1/statuses/${id}/unfavourite`).expect(200)
    await a.post(`/api/v1/accounts/${b.id}/unfollow`).expect(200)
    expect(await types(b)).toEqual([])

    const locked = await signUp(stack)
    await stack.accounts.ctx.db('accounts').where({ id: locked.id }).update({ locked: true })
    await a.post(`/api/v1/accounts/${locked.id}/follow`).expect(200)
    await a.post(`/api/v1/accounts/${locked.id}/unfollow`).expect(200)
    expect(await types(locked)).toEqual([])
    await b.post(`/api/v1/accounts/${locked.id}/follow`).expect(200)
    expect(await types(locked)).toEqual([['follow_request', b.id]])
    await locked.post(`/api/v1/follow_requests/${b.id}/reject`).expect(200)
    expect(await types(locked)).toEqual([])
  })

  it('none for self-actions, blocked senders, or senders muted with notifications', async () => {
    const [me, blocked, muted, quiet] = [
      await signUp(stack),
      await signUp(stack),
      await signUp(stack),
      await signUp(stack),
    ]
    const mine = await post(me, 'mine')
    await me.post(`/api/v1/statuses/${mine}/favourite`).expect(200)
    await post(me, `@${me.username} note to self`)

    await me.post(`/api/v1/accounts/${muted.id}/mute`).expect(200)
    await muted.post(`/api/v1/accounts/${me.id}/follow`).expect(200)
    await me.post(`/api/v1/accounts/${quiet.id}/mute`, { notifications: false }).expect(200)
    await quiet.post(`/api/v1/accounts/${me.id}/follow`).expect(200)
    await me.post(`/api/v1/accounts/${blocked.id}/block`).expect(200)
    await post(blocked, `@${me.username} hello?`)
    expect(await types(me)).toEqual([['follow', quiet.id]])

    // An expired mute no longer silences.
    await stack.accounts.ctx
      .db('mutes')
      .where({ account_id: me.id })
      .update({ expires_at: new Date(Date.now() - 1000) })
    await post(muted, `@${me.username} back`)
    expect((await types(me))[0]).toEqual(['mention', muted.id])
  })
})

describe('GET /api/v1/notifications and friends', () => {
  it('filters by types[] and exclude_types[], pages with Link, shows, dismisses and clears', async () => {
    const me = await signUp(stack)
    const fans = [await signUp(stack), await signUp(stack), await signUp(stack)]
    for (const fan of fans) await fan.post(`/api/v1/accounts/${me.id}/follow`).expect(200)
    const status = await post(me, 'fav me')
    await fans[0]!.post(`/api/v1/statuses/${status}/favourite`).expect(200)
    await stack.drain()

    const follows = await me.get('/api/v1/notifications?types[]=follow').expect(200)
    expect(follows.body).toHaveLength(3)
    const favs = await me.get('/api/v1/notifications?exclude_types[]=follow').expect(200)
    expect(favs.body.map((n: { type: string }) => n.type)).toEqual(['favourite'])

    const page = await me.get('/api/v1/notifications?limit=2&types[]=follow').expect(200)
    expect(page.body).toHaveLength(2)
    const l = links(page.headers.link)
    expect(l.next).toBe(
      `${stack.url}/api/v1/notifications?limit=2&max_id=${page.body[1].id}&types%5B%5D=follow`,
    )
    expect(l.prev).toBe(
      `${stack.url}/api/v1/notifications?limit=2&min_id=${page.body[0].id}&types%5B%5D=follow`,
    )
    const next = await me.get(l.next!.slice(stack.url.length)).expect(200)
    expect(next.body.map((n: { account: { id: string } }) => n.account.id)).toEqual([fans[0]!.id])

    const one = page.body[0]
    expect((await me.get(`/api/v1/notifications/${one.id}`).expect(200)).body).toMatchObject({
      id: one.id,
      type: 'follow',
    })
    await fans[0]!.get(`/api/v1/notifications/${one.id}`).expect(404)
    await fans[0]!.post(`/api/v1/notifications/${one.id}/dismiss`).expect(404)
    await me.post(`/api/v1/notifications/${one.id}/dismiss`).expect(200)
    await me.get(`/api/v1/notifications/${one.id}`).expect(404)
    await me.get('/api/v1/notifications/abc').expect(404)
    expect((await me.get('/api/v1/notifications?limit=1000').expect(200)).body).toHaveLength(3)
    await me.post('/api/v1/notifications/clear').expect(200)
    expect((await me.get('/api/v1/notifications').expect(200)).body).toEqual([])

    const readOnly = await signUp(stack, { scope: 'read' })
    await readOnly.post('/api/v1/notifications/clear').expect(403)
    await stack.api().get('/api/v1/notifications').expect(401)
  })
})

describe('the outbox: notification.created reaches BullMQ exactly once', () => {
  it('publishes the event with the policy facts', async () => {
    const [a, b] = [await signUp(stack), await signUp(stack)]
    await stack.accounts.ctx
      .db('accounts')
      .where({ id: a.id })
      .update({ display_name: 'Alice A', note: 'my  bio' })
    await b.post(`/api/v1/accounts/${a.id}/follow`).expect(200)
    await a.post(`/api/v1/accounts/${b.id}/follow`).expect(200)
    await stack.drain()
    const [n] = (await b.get('/api/v1/notifications').expect(200)).body
    const [job] = await eventually(async () => {
      const jobs = await jobsFor(n.id)
      return jobs.length ? jobs : undefined
    })
    expect(job!.data).toMatchObject({
      notificationId: n.id,
      type: 'follow',
      recipientAccountId: b.id,
      recipientUserId: b.userId,
      recipientLocale: 'en',
      senderAccountId: a.id,
      senderName: 'Alice A',
      senderAvatarUrl: `${stack.url}/avatars/original/missing.png`,
      excerpt: 'my bio',
      recipientFollowsSender: true,
      senderFollowsRecipient: true,
    })
    expect(job!.id).toMatch(/^outbox-\d+$/)
  })

  it('survives a publisher that fails: each event is handled once after it recovers', async () => {
    const relay = stack.accountsWorker!.relay
    const db = stack.accounts.ctx.db
    await relay.stop()
    // A relay whose Redis does not answer: it must leave the row unpublished.
    const dead = new Redis(`redis://127.0.0.1:${await freePort()}`, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    })
    dead.on('error', () => {})
    const deadProducers = createProducers(dead, stack.env.REDIS_PREFIX!)
    const failing = createOutboxRelay({
      db,
      producers: deadProducers,
      logger: stack.accounts.ctx.logger,
      redis: dead,
      redisPrefix: stack.env.REDIS_PREFIX!,
    })
    const liveProducers = createProducers(redis, stack.env.REDIS_PREFIX!)
    const activities = new Queue(QUEUES.activities, {
      connection: redis,
      prefix: bullPrefix(stack.env.REDIS_PREFIX!),
    })
    try {
      const [a, b] = [await signUp(stack), await signUp(stack)]
      await a.post(`/api/v1/accounts/${b.id}/follow`).expect(200)
      const followed = () =>
        db('outbox')
          .where({ job_name: 'follow.created' })
          .whereRaw(`payload->>'accountId' = ?`, [a.id])
          .first()
      const row = await followed()
      expect(row.published_at).toBeNull()

      await failing.flush()
      expect((await followed()).published_at).toBeNull()
      expect(await activities.getJob(`outbox-${row.id}`)).toBeUndefined()

      // A relay that published and then died before marking the row: the row goes out again, still one job.
      await liveProducers.publish([{ event: row.payload, jobId: `outbox-${row.id}` }])
      relay.start()
      await stack.drain()
      expect((await followed()).published_at).not.toBeNull()
      const jobs = (await activities.getJobs(['completed', 'failed', 'waiting', 'active', 'delayed'])).filter(
        (j) => j.id === `outbox-${row.id}`,
      )
      expect(jobs).toHaveLength(1)
      expect(await types(b)).toEqual([['follow', a.id]])
      const [n] = (await b.get('/api/v1/notifications').expect(200)).body
      expect(await jobsFor(n.id)).toHaveLength(1)
    } finally {
      relay.start()
      await liveProducers.close()
      await activities.close()
      await deadProducers.close().catch(() => {})
      dead.disconnect()
    }
  })
})
