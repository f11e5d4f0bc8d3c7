import { z } from 'zod'
import { notificationCreated } from '@roost/events'

/**
 * A `push-deliveries` job: one notification for one subscription, to be tried again (the fan-out made the first
 * attempt: `attemptsBefore`). Internal to the push service.
 */
export const deliveryJob = z.object({
  subscriptionId: z.string().regex(/^\d+$/),
  event: notificationCreated,
  attemptsBefore: z.number().int().min(0).default(0),
})
export type DeliveryJob = z.infer<typeof deliveryJob>

export const DELIVERY_JOB_NAME = 'push.delivery'

/**
 * The delivery's job id: one per notification and subscription, so a replayed event never pushes twice.
 * `<notification id>-<subscription id>`, not `:`: BullMQ refuses custom ids containing `:`
 * ("Custom Id cannot contain :", it would clash with its own key layout).
 */
export const deliveryJobId = (notificationId: string, subscriptionId: string) =>
  `${notificationId}-${subscriptionId}`

/**
 * The push service answered something worth retrying (408, 429, 5xx, 3xx), maybe with a Retry-After, or did not
 * answer (`status` 0, `reason` says why).
 */
export class RetryablePushError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs: number,
    reason?: string,
  ) {
    super(status ? `Push service answered ${status}` : `Push service did not answer: ${reason}`)
  }
}

/** `Retry-After` in seconds or as an HTTP date; 0 when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number {
  if (!value) return 0
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? 0 : Math.max(0, date - now)
}
