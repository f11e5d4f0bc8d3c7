import { Redis } from 'ioredis'
import type { AccountEvent, NotificationCreated, NotificationType } from '@roost/events'
import { createProducers } from '@roost/events'
import type { Answer, PushReceiver } from '@roost/testing'
import type { Stack } from '../stack'

export const ALL_ALERTS = { follow: true, favourite: true, reblog: true, mention: true }

/** Publishes events the way accounts does: through the events package's producers, onto the stack's queues. */
export function eventPublisher(stack: Stack) {
  const connection = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: null })
  const producers = createProducers(connection, stack.env.REDIS_PREFIX!)
  let sequence = 0
  const base = 1_000_000 + Math.floor(Math.random() * 1_000_000_000)
  return {
    event(
      recipient: { userId: string; accountId: string },
      type: NotificationType,
      overrides: Partial<NotificationCreated> = {},
    ): NotificationCreated {
      return {
        notificationId: String(base + ++sequence),
        type,
        recipientUserId: recipient.userId,
        recipientAccountId: recipient.accountId,
        recipientLocale: 'en',
        senderAccountId: '42',
        senderName: 'Alice',
        senderAvatarUrl: 'https://roost.example/media/alice.png',
        excerpt: 'Hello there',
        recipientFollowsSender: false,
        senderFollowsRecipient: false,
        createdAt: new Date().toISOString(),
        ...overrides,
      }
    },
    async publish(event: NotificationCreated, jobId = `test-${event.notificationId}`) {
      await producers.publish([{ event: { event: 'notification.created', ...event }, jobId }])
    },
    /** Several events in one publication, as the relay publishes a batch of outbox rows. */
    async publishTogether(published: { event: NotificationCreated; jobId: string }[]) {
      await producers.publish(
        published.map(({ event, jobId }) => ({ event: { event: 'notification.created', ...event }, jobId })),
      )
    },
    async accountEvent(event: AccountEvent, jobId: string) {
      await producers.publish([{ event, jobId }])
    },
    async close() {
      await producers.close()
      await connection.quit().catch(() => connection.disconnect())
    },
  }
}

/** A user with a push subscription on the receiver, made through the gateway as a client would. */
export async function subscribedUser(
  stack: Stack,
  receiver: PushReceiver,
  options: {
    alerts?: Record<string, boolean>
    policy?: string
    /** `null`: the client sends no `standard` at all. */
    standard?: boolean | null
    answers?: Answer[]
  } = {},
) {
  const user = await stack.createUser()
  const token = await stack.userToken('push', user)
  const subscriber = receiver.subscriber(options.answers)
  const res = await stack
    .api()
    .post('/api/v1/push/subscription')
    .set('Authorization', `Bearer ${token}`)
    .send({
      subscription: {
        endpoint: subscriber.endpoint,
        keys: subscriber.keys,
        ...(options.standard === null ? {} : { standard: options.standard ?? true }),
      },
      data: { alerts: options.alerts ?? ALL_ALERTS, policy: options.policy ?? 'all' },
    })
    .expect(200)
  return { ...user, token, endpoint: subscriber.endpoint, subscriptionId: String(res.body.id) }
}
