import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { eventPublisher, subscribedUser } from './helpers'

let stack: Stack
let receiver: PushReceiver
let events: ReturnType<typeof eventPublisher>
beforeAll(async () => {
  stack = await startStack()
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
  events = eventPublisher(stack)
})
afterAll(async () => {
  await events.close()
  await stack.stop()
  await receiver.close()
})
afterEach(() => {
  // Every message that reached the receiver must have verified and decrypted.
  expect(receiver.problems).toEqual([])
})

const KINDS = ['follow', 'favourite', 'reblog', 'mention'] as const
const TITLES = {
  follow: 'Alice is now following you',
  favourite: 'Alice favorited your post',
  reblog: 'Alice boosted your post',
  mention: 'You were mentioned by Alice',
}

describe('push delivery', () => {
  it.each([true, false, null])('delivers one decryptable push per event (standard=%s)', async (standard) => {
    const user = await subscribedUser(stack, receiver, { standard })
    const sent = KINDS.map((kind) => events.event(user, kind))
    for (const event of sent) await events.publish(event)
    await receiver.waitFor(() => receiver.messagesFor(user.endpoint).length === 4)
    await stack.drain()
    const messages = receiver.messagesFor(user.endpoint)
    expect(messages).toHaveLength(4)
    for (const event of sent) {
      const message = messages.find((m) => m.payload.notification_id === Number(event.notificationId))!
      expect(message.encoding).toBe(standard ? 'aes128gcm' : 'aesgcm')
      // Without `standard` (null) or with false: the legacy draft's three headers, as Mastodon sends them.
      if (standard)
        expect(message.headers).toMatchObject({
          authorization: expect.stringMatching(/^vapid t=\S+,\s*k=\S+$/),
        })
      else
        expect(message.headers).toMatchObject({
          encryption: expect.stringMatching(/^salt=[\w-]+$/),
          'crypto-key': expect.stringMatching(/^dh=[\w-]+;p256ecdsa=[\w-]+$/),
          authorization: expect.stringMatching(/^WebPush \S+\.\S+\.\S+$/),
        })
      expect(message.payload).toEqual({
        access_token: user.token,
        preferred_locale: 'en',
        notification_id: Number(event.notificationId),
        notification_type: event.type,
        icon: 'https://roost.example/media/alice.png',
        title: TITLES[event.type as keyof typeof TITLES],
        body: 'Hello there',
      })
      expect(message.headers).toMatchObject({ ttl: '172800', urgency: 'normal' })
      expect(message.vapid.aud).toBe(receiver.origin)
    }
  })

  it('cuts the body at 140 characters', async () => {
    const user = await subscribedUser(stack, receiver)
    await events.publish(events.event(user, 'mention', { excerpt: 'x'.repeat(300) }))
    await receiver.waitFor(() => receiver.messagesFor(user.endpoint).length === 1)
    const body = receiver.messagesFor(user.endpoint)[0]!.payload.body as string
    expect(body).toHaveLength(140)
    expect(body.endsWith('...')).toBe(true)
  })

  it.each(KINDS)('does not push %s once its alert is switched off; the others still arrive', async (off) => {
    const user = await subscribedUser(stack, receiver)
    const alerts = Object.fromEntries(KINDS.map((kind) => [kind, kind !== off]))
    await stack
      .api()
      .put('/api/v1/push/subscription')
      .set('Authorization', `Bearer ${user.token}`)
      .send({ data: { alerts } })
      .expect(200)
    for (const kind of KINDS) await events.publish(events.event(user, kind))
    await receiver.waitFor(() => receiver.messagesFor(user.endpoint).length === 3)
    await stack.drain()
    const types = receiver.messagesFor(user.endpoint).map((m) => m.payload.notification_type)
    expect(types.sort()).toEqual(KINDS.filter((k) => k !== off).sort())
  })

  it.each([
    ['all', ['neither', 'recipient follows', 'sender follows', 'mutual']],
    ['followed', ['recipient follows', 'mutual']],
    ['follower', ['sender follows', 'mutual']],
    ['none', []],
  ])('honours policy %s', async (policy, expected) => {
    const user = await subscribedUser(stack, receiver, { policy })
    const cases = {
      neither: [false, false],
      'recipient follows': [true, false],
      'sender follows': [false, true],
      mutual: [true, true],
    }
    const ids: Record<string, string> = {}
    for (const [name, [recipientFollowsSender, senderFollowsRecipient]] of Object.entries(cases)) {
      const event = events.event(user, 'mention', { recipientFollowsSender, senderFollowsRecipient })
      ids[name] = event.notificationId
      await events.publish(event)
    }
    await receiver.waitFor(() => receiver.messagesFor(user.endpoint).length >= expected.length)
    await stack.drain()
    const delivered = receiver.messagesFor(user.endpoint).map((m) => m.payload.notification_id)
    expect(delivered.sort()).toEqual(expected.map((name) => Number(ids[name])).sort())
  })

  it('pushes a replayed event only once per subscription', async () => {
    const user = await subscribedUser(stack, receiver)
    const event = events.event(user, 'follow')
    await events.publish(event, 'first-publication')
    await events.publish(event, 'replayed-publication')
    await receiver.waitFor(() => receiver.messagesFor(user.endpoint).length >= 1)
    await stack.drain()
    expect(receiver.messagesFor(user.endpoint)).toHaveLength(1)

    // Still once after the finished jobs are gone from Redis (BullMQ keeps completed jobs for an hour only).
    await stack.pushWorker.queues.notifications.clean(0, 1000, 'completed')
    await events.publish(event, 'replayed-after-cleanup')
    await stack.drain()
    expect(receiver.messagesFor(user.endpoint)).toHaveLength(1)
  })

  it('notifications published together go as one job, each push once, also when published again in other company', async () => {
    const [ann, ben] = [await subscribedUser(stack, receiver), await subscribedUser(stack, receiver)]
    const batch = [
      { event: events.event(ann, 'mention'), jobId: 'batch-1' },
      { event: events.event(ben, 'follow'), jobId: 'batch-2' },
      { event: events.event(ann, 'favourite'), jobId: 'batch-3' },
    ]
    const { notifications } = stack.pushWorker.queues
    const jobsNow = async () =>
      (
        await notifications.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized'])
      ).filter((job) => String(job.id).startsWith('batch-'))
    await events.publishTogether(batch)
    await events.publishTogether(batch) // the same rows published twice (a crash before marking): one job still
    await receiver.waitFor(
      () => receiver.messagesFor(ann.endpoint).length + receiver.messagesFor(ben.endpoint).length >= 3,
    )
    await stack.drain()
    const [job, ...others] = await jobsNow()
    expect(others).toEqual([])
    expect(job!.name).toBe('notifications.created')
    expect(job!.id).toMatch(/^batch-1\+2-[0-9a-f]{16}$/)
    expect(job!.data.notifications.map((n: { notificationId: string }) => n.notificationId)).toEqual(
      batch.map((b) => b.event.notificationId),
    )
    const types = (user: { endpoint: string }) =>
      receiver
        .messagesFor(user.endpoint)
        .map((m) => m.payload.notification_type)
        .sort()
    expect(types(ann)).toEqual(['favourite', 'mention'])
    expect(types(ben)).toEqual(['follow'])

    // Published again in other company (a replay after Redis lost its data batches the rows as they come): a new
    // job, whose pushes were sent already.
    await events.publishTogether(batch.slice(1))
    await stack.drain()
    expect((await jobsNow()).map((j) => j.name).sort()).toEqual([
      'notifications.created',
      'notifications.created',
    ])
    expect(types(ann)).toEqual(['favourite', 'mention'])
    expect(types(ben)).toEqual(['follow'])
  })

  it('drops notifications older than 48 hours', async () => {
    const user = await subscribedUser(stack, receiver)
    const old = new Date(Date.now() - 49 * 3600 * 1000).toISOString()
    await events.publish(events.event(user, 'follow', { createdAt: old }))
    const fresh = events.event(user, 'mention')
    await events.publish(fresh)
    await receiver.waitFor(() => receiver.messagesFor(user.endpoint).length >= 1)
    await stack.drain()
    expect(receiver.messagesFor(user.endpoint).map((m) => m.payload.notification_type)).toEqual(['mention'])
  })
})

describe('push service answers', () => {
  const subscriptionExists = async (id: string) =>
    (await stack.push.db('subscriptions').where('id', id).first()) !== undefined

  it('deletes the subscription when the push service answers 410', async () => {
    const user = await subscribedUser(stack, receiver, { answers: [{ status: 410 }] })
    await events.publish(events.event(user, 'follow'))
    await receiver.waitFor(() => receiver.messagesFor(user.endpoint).length === 1)
    await stack.drain()
    expect(await subscriptionExists(user.subscriptionId)).toBe(false)
    await stack
      .api()
      .get('/api/v1/push/subscription')
      .set('Authorization', `Bearer ${user.token}`)
      .expect(404)
  })

  it('retries after a 500 and delivers on the next attempt', async () => {
    const user = await subscribedUser(stack, receiver, { answers: [{ status: 500 }, { status: 201 }] })
    const event = events.event(user, 'favourite')
    await events.publish(event)
    await receiver.waitFor(() => receiver.messagesFor(user.endpoint).length === 2)
    await stack.drain()
    const messages = receiver.messagesFor(user.endpoint)
    expect(messages.map((m) => m.status)).toEqual([500, 201])
    expect(messages.every((m) => m.payload.notification_id === Number(event.notificationId))).toBe(true)
    expect(await subscriptionExists(user.subscriptionId)).toBe(true)
  })

  it('waits at least Retry-After before retrying a 429', async () => {
    const user = await subscribedUser(stack, receiver, {
      answers: [{ status: 429, headers: { 'Retry-After': '1' } }],
    })
    await events.publish(events.event(user, 'reblog'))
    await receiver.waitFor(() => receiver.messagesFor(user.endpoint).length === 2)
    const [first, second] = receiver.messagesFor(user.endpoint)
    expect(first!.status).toBe(429)
    expect(second!.status).toBe(201)
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000)
    expect(await subscriptionExists(user.subscriptionId)).toBe(true)
  })

  it('counts deliveries by outcome on the worker metrics', async () => {
    // Summed over the push worker copies (one unless ROOST_TEST_COPIES).
    expect(await stack.pushWorkerCounter('push_deliveries_total', { outcome: 'delivered' })).toBeGreaterThan(
      0,
    )
    expect(await stack.pushWorkerCounter('push_deliveries_total', { outcome: 'retry' })).toBeGreaterThan(0)
    expect(await stack.pushWorkerCounter('push_delivery_latency_seconds_count')).toBeGreaterThan(0)
  })
})

describe('account events', () => {
  it('revoking the token through /oauth/revoke deletes its subscription', async () => {
    const user = await stack.createUser()
    const app = await stack.registerApp('push')
    const grant = await stack
      .api()
      .post('/oauth/token')
      .send({
        grant_type: 'password',
        client_id: app.client_id,
        client_secret: app.client_secret,
        username: user.email,
        password: user.password,
        scope: 'push',
      })
      .expect(200)
    const token = grant.body.access_token as string
    const subscriber = receiver.subscriber()
    const created = await stack
      .api()
      .post('/api/v1/push/subscription')
      .set('Authorization', `Bearer ${token}`)
      .send({ subscription: { endpoint: subscriber.endpoint, keys: subscriber.keys } })
      .expect(200)
    await stack
      .api()
      .post('/oauth/revoke')
      .send({ token, client_id: app.client_id, client_secret: app.client_secret })
      .expect(200)
    await stack.drain()
    expect(await stack.push.db('subscriptions').where('id', created.body.id).first()).toBeUndefined()
  })
})

describe('account events from accounts', () => {
  it.each(['account.suspended', 'user.deleted', 'push_subscriptions.revoked'] as const)(
    '%s deletes every subscription of the user',
    async (kind) => {
      const user = await subscribedUser(stack, receiver)
      const other = await subscribedUser(stack, receiver)
      await events.accountEvent(
        kind === 'account.suspended'
          ? { event: kind, userId: user.userId, accountId: user.accountId }
          : { event: kind, userId: user.userId },
        `test-${kind}-${user.userId}`,
      )
      await stack.drain()
      expect(await stack.push.db('subscriptions').where('user_id', user.userId)).toEqual([])
      expect(await stack.push.db('subscriptions').where('user_id', other.userId)).toHaveLength(1)
    },
  )
})
