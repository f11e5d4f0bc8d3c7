import { UnrecoverableError } from 'bullmq'
import type { Queue } from 'bullmq'
import type { Knex } from '@roost/db'
import { COMPLETED_JOB_RETENTION, JOB_NAMES, notificationEvent, processor } from '@roost/events'
import type { NotificationCreated } from '@roost/events'
import type { Logger } from '@roost/service'
import { isPushable, subscriptionsOf } from '../subscriptions/store'
import { DELIVERY_JOB_NAME, deliveryJobId, RetryablePushError } from './job'
import type { Push, Pusher } from './pushes'
import { isStale } from './pushes'

/**
 * The `notifications` queue's processor: a notification's pushes, or those of several notifications
 * (`notifications.created`: one activity's, or those the outbox published together), their subscriptions and which
 * of them are acknowledged read in one statement (docs/security.md, "Push delivery: nothing lost, nothing twice"):
 * the first attempt of each is
 * made here, with the subscriptions just read, and only one that must be tried again becomes a `push-deliveries`
 * job (its id deterministic, delayed as the backoff says). A fan-out that dies half-way is run again by BullMQ and
 * finds what it had sent in the acknowledgements, so a crash at any instruction loses nothing (issue #9, finding 3).
 */
export function fanOutProcessor(d: {
  db: Knex
  pusher: Pusher
  /** The `push-deliveries` queue, and its jobs' attempts (the fan-out's included) and backoff. */
  retries: Queue
  attempts: number
  backoff: (attemptsMade: number, type?: string, err?: Error) => number
  logger: Logger
  concurrency: number
}) {
  const { db, pusher } = d
  return processor({
    schema: notificationEvent,
    async process(e, job) {
      let events: NotificationCreated[]
      if (e.event === JOB_NAMES.notificationsCreated) events = e.notifications
      else {
        const { event: _, ...notification } = e
        events = [notification]
      }
      const fresh = events.filter((event) => !isStale(event))
      if (fresh.length < events.length)
        pusher.outcomes.inc({ outcome: 'stale' }, events.length - fresh.length)
      const pushes: Push[] = []
      const { subscriptions, acknowledged } = await subscriptionsOf(db, fresh)
      for (const event of fresh)
        for (const subscription of subscriptions)
          if (String(subscription.user_id) === event.recipientUserId && isPushable(subscription, event)) {
            const deliveryId = deliveryJobId(event.notificationId, String(subscription.id))
            pushes.push({ subscription, event, deliveryId, acknowledged: acknowledged.has(deliveryId) })
          }
      const retries: (Push & { err: RetryablePushError })[] = []
      let failure: PromiseRejectedResult | undefined
      // Every push settles before the job does: one that failed for another reason than the push service
      // (Postgres down) fails the job once the others are done, and the job's next run sends what is not
      // acknowledged.
      for (const [i, outcome] of (await pusher.pushAll(pushes, `fan-out ${job.id}`)).entries()) {
        if (outcome.status === 'fulfilled') continue
        const err: unknown = outcome.reason
        if (err instanceof UnrecoverableError)
          d.logger.warn({ err, deliveryId: pushes[i]!.deliveryId }, 'push refused for good')
        else if (err instanceof RetryablePushError) retries.push({ ...pushes[i]!, err })
        else failure ??= outcome
      }
      if (failure) throw failure.reason
      if (d.attempts < 2 || !retries.length) return
      await d.retries.addBulk(
        retries.map(({ subscription, event, deliveryId, err }) => ({
          name: DELIVERY_JOB_NAME,
          data: { subscriptionId: String(subscription!.id), event, attemptsBefore: 1 },
          opts: {
            jobId: deliveryId,
            delay: d.backoff(1, 'push', err),
            attempts: d.attempts - 1,
            backoff: { type: 'push' },
            removeOnComplete: COMPLETED_JOB_RETENTION,
            removeOnFail: { age: 7 * 24 * 3600 },
          },
        })),
      )
    },
    concurrency: d.concurrency,
  })
}
