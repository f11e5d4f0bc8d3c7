import { Queue } from 'bullmq'
import type { ConnectionOptions, JobsOptions } from 'bullmq'
import { Redis } from 'ioredis'
import { z } from 'zod'

/**
 * The contracts between services that travel over BullMQ (shared design.md, "Events"): queue names, job names
 * and payload schemas. Producers validate before adding; workers parse on receipt.
 */
export const QUEUES = {
  notifications: 'notifications',
  pushDeliveries: 'push-deliveries',
  accountEvents: 'account-events',
} as const

const id = z.string().regex(/^\d{1,19}$/)

export const NOTIFICATION_TYPES = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'admin.sign_up',
  'admin.report',
  'quote',
  'quoted_update',
] as const
export type NotificationType = (typeof NOTIFICATION_TYPES)[number]

export const notificationCreated = z.object({
  notificationId: id,
  type: z.enum(NOTIFICATION_TYPES),
  recipientUserId: id,
  recipientAccountId: id,
  recipientLocale: z.string().default('en'),
  senderAccountId: id,
  senderName: z.string(),
  senderAvatarUrl: z.string(),
  /** Plain text of the status (its content warning if any) or the sender's bio; already stripped of HTML. */
  excerpt: z.string(),
  /** The two facts the push `policy` needs: `followed` and `follower`. */
  recipientFollowsSender: z.boolean(),
  senderFollowsRecipient: z.boolean(),
  createdAt: z.iso.datetime(),
})
export type NotificationCreated = z.infer<typeof notificationCreated>

export const accountEvent = z.discriminatedUnion('event', [
  z.object({ event: z.literal('token.revoked'), tokenId: id, userId: id.optional() }),
  z.object({ event: z.literal('account.suspended'), userId: id, accountId: id }),
  z.object({ event: z.literal('user.deleted'), userId: id }),
])
export type AccountEvent = z.infer<typeof accountEvent>

export const JOB_NAMES = {
  notificationCreated: 'notification.created',
} as const

/** Redis connection for BullMQ: workers block, so commands must never time out (BullMQ's requirement). */
export function createRedis(url: string, options: { forWorker?: boolean } = {}): Redis {
  return new Redis(url, {
    // Producers give up on a command after a few reconnection attempts (the outbox keeps the event); commands sent
    // before the connection is up wait for it rather than failing.
    maxRetriesPerRequest: options.forWorker ? null : 3,
  })
}

/** BullMQ's key prefix: a hash tag, so every key of a queue lands in one Redis Cluster slot. */
export const bullPrefix = (redisPrefix: string) => `{${redisPrefix}}`

export const defaultJobOptions: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
}

/** The queues a producer adds to. `jobId` makes every add idempotent: a replayed event is not added twice. */
export function createProducers(connection: ConnectionOptions | Redis, redisPrefix: string) {
  const prefix = bullPrefix(redisPrefix)
  const notifications = new Queue(QUEUES.notifications, { connection, prefix, defaultJobOptions })
  const accountEvents = new Queue(QUEUES.accountEvents, { connection, prefix, defaultJobOptions })
  return {
    async notificationCreated(payload: NotificationCreated, jobId: string) {
      await notifications.add(JOB_NAMES.notificationCreated, notificationCreated.parse(payload), { jobId })
    },
    async accountEvent(payload: AccountEvent, jobId: string) {
      const event = accountEvent.parse(payload)
      await accountEvents.add(event.event, event, { jobId })
    },
    async close() {
      await Promise.all([notifications.close(), accountEvents.close()])
    },
  }
}
export type Producers = ReturnType<typeof createProducers>
