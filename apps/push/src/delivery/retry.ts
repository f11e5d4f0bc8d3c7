import type { MinimalJob } from 'bullmq'
import type { Knex } from '@roost/db'
import { processor } from '@roost/events'
import { findById } from '../subscriptions/store'
import { acknowledgedAmong } from './acknowledgements'
import { deliveryJob, RetryablePushError } from './job'
import type { Pusher } from './pushes'
import { isStale } from './pushes'

/**
 * The backoff of pushes tried again: exponential from PUSH_RETRY_BASE_MS, but never sooner than the push
 * service's Retry-After. A delivery job counts the fan-out's first attempt (`attemptsBefore`).
 */
export const pushBackoff =
  (baseMs: number) => (attemptsMade: number, _type?: string, err?: Error, job?: MinimalJob) =>
    Math.max(
      baseMs * 2 ** (attemptsMade + Number(job?.data?.attemptsBefore ?? 0) - 1),
      err instanceof RetryablePushError ? err.retryAfterMs : 0,
    )

/**
 * The `push-deliveries` queue's processor: a push tried again, its subscription read afresh, and whether it is
 * acknowledged already (both at once: two statements, one wait).
 */
export const retriesProcessor = (db: Knex, pusher: Pusher, concurrency: number) =>
  processor({
    schema: deliveryJob,
    async process({ subscriptionId, event }, job) {
      if (isStale(event)) return pusher.outcomes.inc({ outcome: 'stale' })
      const deliveryId = String(job.id)
      const [subscription, acknowledged] = await Promise.all([
        findById(db, subscriptionId),
        acknowledgedAmong(db, [deliveryId]),
      ])
      const pushes = [{ subscription, event, deliveryId, acknowledged: acknowledged.has(deliveryId) }]
      const [outcome] = await pusher.pushAll(pushes, `retry ${job.id}`)
      if (outcome!.status === 'rejected') throw outcome!.reason
    },
    concurrency,
  })
