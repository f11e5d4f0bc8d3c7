import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { subscribedUser } from './helpers'

/**
 * The whole path, with nothing published by hand: a client acts through the gateway, accounts writes the
 * notification and its outbox row, the relay publishes `notification.created`, the push workers fan out and
 * deliver, and the receiver decrypts what the subscriber's device would get.
 */
let stack: Stack
let receiver: PushReceiver
beforeAll(async () => {
  stack = await startStack()
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
})
afterAll(async () => {
  await stack.stop()
  await receiver.close()
})
afterEach(() => expect(receiver.problems).toEqual([]))

async function actor(name: string) {
  const user = await stack.createUser({ username: name })
  await stack.accounts.ctx
    .db('accounts')
    .where({ id: user.accountId })
    .update({ display_name: `${name} display` })
  return { ...user, token: await stack.userToken('read write follow', user) }
}

it('a follow, a favourite, a reblog and a mention each reach the owner as a real encrypted push', async () => {
  const owner = await subscribedUser(stack, receiver)
  const ownerApp = await stack.userToken('read write follow', owner)
  const bob = await actor('bob_e2e')

  await stack.api().post(`/api/v1/accounts/${owner.accountId}/follow`).set(bearer(bob.token)).expect(200)
  const post = await stack
    .api()
    .post('/api/v1/statuses')
    .set(bearer(ownerApp))
    .send({ status: 'A post of mine' })
    .expect(200)
  await stack.api().post(`/api/v1/statuses/${post.body.id}/favourite`).set(bearer(bob.token)).expect(200)
  await stack.api().post(`/api/v1/statuses/${post.body.id}/reblog`).set(bearer(bob.token)).expect(200)
  await stack
    .api()
    .post('/api/v1/statuses')
    .set(bearer(bob.token))
    .send({ status: `@${owner.username} hello from bob` })
    .expect(200)

  await receiver.waitFor(() => receiver.messagesFor(owner.endpoint).length >= 4, 15_000)
  await stack.drain()
  const messages = receiver.messagesFor(owner.endpoint)
  expect(messages.map((m) => m.payload.notification_type).sort()).toEqual([
    'favourite',
    'follow',
    'mention',
    'reblog',
  ])

  const notifications = await stack.api().get('/api/v1/notifications').set(bearer(ownerApp))
  for (const message of messages) {
    const notification = notifications.body.find(
      (n: { id: string }) => n.id === String(message.payload.notification_id),
    )
    expect(notification).toMatchObject({
      type: message.payload.notification_type,
      account: { id: bob.accountId },
    })
    expect(message.payload).toMatchObject({ access_token: owner.token, preferred_locale: 'en' })
    expect(message.payload.icon).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/avatars\/original\/missing\.png$/)
  }
  const byType = Object.fromEntries(messages.map((m) => [m.payload.notification_type, m.payload]))
  expect(byType.follow).toMatchObject({ title: 'bob_e2e display is now following you' })
  expect(byType.favourite).toMatchObject({
    title: 'bob_e2e display favorited your post',
    body: 'A post of mine',
  })
  expect(byType.reblog).toMatchObject({ title: 'bob_e2e display boosted your post', body: 'A post of mine' })
  expect(byType.mention).toMatchObject({ title: 'You were mentioned by bob_e2e display' })
  expect(String(byType.mention!.body)).toContain('hello from bob')
})

it('only the alerts that are switched on are pushed, and blocked senders push nothing', async () => {
  const owner = await subscribedUser(stack, receiver, { alerts: { follow: false, mention: true } })
  const carol = await actor('carol_e2e')
  const dave = await actor('dave_e2e')

  await stack.api().post(`/api/v1/accounts/${owner.accountId}/follow`).set(bearer(carol.token)).expect(200)
  await stack
    .api()
    .post(`/api/v1/accounts/${dave.accountId}/block`)
    .set(bearer(await stack.userToken('follow', owner)))
    .expect(200)
  await stack
    .api()
    .post('/api/v1/statuses')
    .set(bearer(dave.token))
    .send({ status: `@${owner.username} you blocked me` })
    .expect(200)
  await stack
    .api()
    .post('/api/v1/statuses')
    .set(bearer(carol.token))
    .send({ status: `@${owner.username} only this one` })
    .expect(200)

  await receiver.waitFor(() => receiver.messagesFor(owner.endpoint).length >= 1, 15_000)
  await stack.drain()
  const messages = receiver.messagesFor(owner.endpoint)
  expect(messages).toHaveLength(1)
  expect(messages[0]!.payload).toMatchObject({
    notification_type: 'mention',
    title: 'You were mentioned by carol_e2e display',
  })
})

it('a post mentioning three subscribers is one notifications.created job, and each push goes out once', async () => {
  const readers = [
    await subscribedUser(stack, receiver),
    await subscribedUser(stack, receiver),
    // Pushes only from accounts it follows: its notification is in the job, its push is not sent.
    await subscribedUser(stack, receiver, { policy: 'followed' }),
  ]
  const erin = await actor('erin_e2e')
  await stack
    .api()
    .post('/api/v1/statuses')
    .set(bearer(erin.token))
    .send({ status: readers.map((r) => `@${r.username}`).join(' ') + ' all of you' })
    .expect(200)

  await receiver.waitFor(
    () => readers.slice(0, 2).every((r) => receiver.messagesFor(r.endpoint).length),
    15_000,
  )
  await stack.drain()
  const pushed = readers.map((r) => receiver.messagesFor(r.endpoint))
  expect(pushed.map((messages) => messages.length)).toEqual([1, 1, 0])
  for (const [message] of pushed.slice(0, 2))
    expect(message!.payload).toMatchObject({
      notification_type: 'mention',
      title: 'You were mentioned by erin_e2e display',
    })

  // One outbox row per notification, written with them; the relay merged them into one push fan-out job.
  const rows: { job_name: string; payload: { senderAccountId: string } }[] = await stack.accounts.ctx
    .db('outbox')
    .where({ job_name: 'notification.created' })
    .whereRaw(`payload->>'senderAccountId' = ?`, [erin.accountId])
  expect(rows).toHaveLength(3)
  const jobs = await stack.pushWorker.queues.notifications.getJobs(['completed', 'active', 'waiting'])
  const erins = jobs.filter((job) =>
    (job.data.notifications ?? [job.data]).some(
      (n: { senderAccountId: string }) => n.senderAccountId === erin.accountId,
    ),
  )
  expect(
    erins.map((job) => [
      job.name,
      job.data.notifications.map((n: { senderAccountId: string }) => n.senderAccountId),
    ]),
  ).toEqual([['notifications.created', [erin.accountId, erin.accountId, erin.accountId]]])
})
