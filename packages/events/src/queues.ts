import type { Queue } from 'bullmq'

/** The BullMQ queues between Roost's processes (docs/activities.md). */
export const QUEUES = {
  activities: 'activities',
  notifications: 'notifications',
  pushDeliveries: 'push-deliveries',
  accountEvents: 'account-events',
  timers: 'timers',
  /** Verified activities from other servers, processed off the request path (docs/federation.md, "Inboxes"). */
  inbox: 'inbox',
  /** Signed POSTs of our activities to other servers' inboxes (docs/federation.md, "Delivery"). */
  deliveries: 'deliveries',
  /**
   * Media work too slow for a request: transcoding uploaded video, audio and animated GIFs, and copying remote
   * attachments (docs/media.md, "Video, audio and GIFs").
   */
  media: 'media',
  /** E-mail to users and moderators, sent by the accounts worker over SMTP (docs/operations.md, "Mail"). */
  mail: 'mail',
  /** A user's archives, CSV imports and self-deletion, by the accounts worker (docs/security.md, "Your data"). */
  accountData: 'account-data',
  /** Admin webhooks: the events to tell and their signed POSTs, by the accounts worker (docs/moderation.md). */
  webhooks: 'webhooks',
} as const
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES]

/**
 * Which process consumes which queue: each process's workers are made for exactly these (`createQueueWorkers`),
 * and the test harness waits on all of them (`drain()` in test/stack.ts). Every queue has one consumer process.
 */
export const CONSUMERS = {
  'accounts-worker': [
    QUEUES.activities,
    QUEUES.timers,
    QUEUES.inbox,
    QUEUES.deliveries,
    QUEUES.media,
    QUEUES.mail,
    QUEUES.accountData,
    QUEUES.webhooks,
  ],
  'push-worker': [QUEUES.notifications, QUEUES.pushDeliveries, QUEUES.accountEvents],
} as const satisfies Record<string, readonly QueueName[]>
export type WorkerProcess = keyof typeof CONSUMERS
export type QueueOf<P extends WorkerProcess> = (typeof CONSUMERS)[P][number]

/** BullMQ's key prefix: a hash tag, so every key of a queue lands in one Redis Cluster slot. */
export const bullPrefix = (redisPrefix: string) => `{${redisPrefix}}`

/**
 * Queues whose delayed jobs are work for later rather than work under way: a timer waits for its moment, a
 * federation delivery for a busy or failing server to take it. A process is idle with such jobs pending.
 */
const DELAYED_FOR_LATER: ReadonlySet<QueueName> = new Set([QUEUES.timers, QUEUES.deliveries])

/**
 * How many jobs of `queue` (named `name` in QUEUES) are still to be done now: waiting, running, or put back
 * for a moment (a retry's backoff, an outage waited out), except the delayed jobs of DELAYED_FOR_LATER.
 */
export async function pendingJobs(queue: Queue, name: QueueName): Promise<number> {
  const counts = await queue.getJobCounts(
    'waiting',
    'active',
    'prioritized',
    ...(DELAYED_FOR_LATER.has(name) ? [] : ['delayed' as const]),
  )
  return Object.values(counts).reduce((sum, n) => sum + n, 0)
}
