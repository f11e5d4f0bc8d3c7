import { Redis } from 'ioredis'
import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { eventPublisher, subscribedUser } from '../push/helpers'

// Issue #9, findings 3 and 14: the fan-out's claim and the queueing of the delivery were two steps, so a worker
// dying between them lost the push for 48 h; and a delivery retried after its worker died re-sent a push the push
// service had already accepted. Now the fan-out sends the first pushes itself and queues only retries (deterministic
// job ids), and every push the push service accepts is recorded in Postgres before its job completes. These tests
// replay each crash point by redoing the step that a dead worker would leave for its successor.
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

/** Pushes the receiver accepted (2xx) for a notification. */
const pushesOf = (notificationId: string) =>
  receiver.received.filter((m) => String(m.payload.notification_id) === notificationId && m.status < 300)
    .length

it('a fan-out redone after the first sent everything (a crash before it completed) pushes each once', async () => {
  const users = await Promise.all(Array.from({ length: 5 }, () => subscribedUser(stack, receiver)))
  const sent = users.map((u) => events.event(u, 'mention'))
  for (const event of sent) await events.publish(event)
  await stack.drain()
  // The same notification.created again (the relay's at-least-once replay), after BullMQ has already dropped the
  // finished fan-out jobs: the acknowledgements stop every second push.
  await stack.pushWorker.queues.notifications.clean(0, 1000, 'completed')
  for (const event of sent) await events.publish(event, `replay-${event.notificationId}`)
  await stack.drain()
  for (const event of sent) expect(pushesOf(event.notificationId)).toBe(1)
  expect(await stack.pushWorkerCounter('push_deliveries_total', { outcome: 'already_sent' })).toBe(5)
})

it('a fan-out job whose worker died after the push service accepted its push sends nothing again', async () => {
  const user = await subscribedUser(stack, receiver)
  const event = events.event(user, 'favourite')
  await events.publish(event)
  await stack.drain()
  expect(pushesOf(event.notificationId)).toBe(1)
  // The push went out from the fan-out itself: no delivery job was needed.
  expect(
    await stack.pushWorker.queues.deliveries.getJob(`${event.notificationId}-${user.subscriptionId}`),
  ).toBeUndefined()
  // What a worker killed between the 201 and the job's completion leaves: the same job, to be run again.
  const finished = await stack.pushWorker.queues.notifications.getJob(`test-${event.notificationId}`)
  expect(finished).toBeDefined()
  await finished!.retry('completed')
  await stack.drain()
  expect(pushesOf(event.notificationId)).toBe(1)
})

it('a retry job whose worker died after the push service accepted it sends nothing again', async () => {
  const user = await subscribedUser(stack, receiver, { answers: [{ status: 503 }] })
  const event = events.event(user, 'follow')
  await events.publish(event)
  await stack.drain()
  expect(pushesOf(event.notificationId)).toBe(1)
  const retried = await stack.pushWorker.queues.deliveries.getJob(
    `${event.notificationId}-${user.subscriptionId}`,
  )
  expect(retried?.finishedOn).toBeDefined()
  await retried!.retry('completed')
  await stack.drain()
  expect(pushesOf(event.notificationId)).toBe(1)
})

it('a delivery retried after a 500 (the same job) is still sent', async () => {
  const user = await subscribedUser(stack, receiver, { answers: [{ status: 500 }] })
  const event = events.event(user, 'reblog')
  await events.publish(event)
  await stack.drain()
  expect(pushesOf(event.notificationId)).toBe(1)
  expect(
    receiver.received.filter((m) => String(m.payload.notification_id) === event.notificationId),
  ).toHaveLength(2)
})

it('a fan-out run again after its worker died while sending takes its own claim back and sends', async () => {
  const user = await subscribedUser(stack, receiver)
  const event = events.event(user, 'mention')
  // What a worker killed in the middle of the send leaves: its claim, held by its job.
  const claim = `${stack.env.REDIS_PREFIX}:push-claim:${event.notificationId}-${user.subscriptionId}`
  const redis = new Redis(stack.env.REDIS_URL!)
  await redis.set(claim, `fan-out test-${event.notificationId}`, 'PX', 60_000)
  await events.publish(event)
  await stack.drain()
  expect(pushesOf(event.notificationId)).toBe(1)
  // Sent and recorded: the claim stays until it lapses (a job that read before the record finds it held).
  expect(await redis.get(claim)).toBe(`fan-out test-${event.notificationId}`)
  expect(await redis.pttl(claim)).toBeGreaterThan(0)
  await redis.quit()
})
