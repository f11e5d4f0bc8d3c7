import { UnrecoverableError } from 'bullmq'
import { Counter, Histogram } from 'prom-client'
import type { Registry } from 'prom-client'
import type { Knex } from '@roost/db'
import type { NotificationCreated } from '@roost/events'
import { PrivateAddressError } from '@roost/service'
import { isAuthSecret, isP256PublicKey } from '../subscriptions/keys'
import { deleteById, isPushable } from '../subscriptions/store'
import type { SubscriptionRow } from '../subscriptions/store'
import { createAcknowledger } from './acknowledgements'
import type { createPushClaims } from './claims'
import { parseRetryAfter, RetryablePushError } from './job'
import { pushPayload } from './payload'
import type { PushSender } from './sender'
import { PUSH_TTL_SECONDS } from './sender'

/**
 * A push to make: `subscription` undefined when a retry finds it gone; `acknowledged` whether its delivery was
 * recorded when the job read its subscription (read before the claim: `pushAll`).
 */
export interface Push {
  subscription: SubscriptionRow | undefined
  event: NotificationCreated
  deliveryId: string
  acknowledged: boolean
}

/**
 * Whether the subscription belongs to the notification's recipient: a notification is pushed to its recipient's
 * subscriptions only. A retry reads its subscription by id, and a subscription whose endpoint another token took is
 * deleted and succeeded by a row with a new id (subscriptions/store.ts, `replaceSubscription`), so the retry finds
 * nothing; this check holds even for a row that a job's id would name some other way.
 */
const ownedByRecipient = (subscription: SubscriptionRow, event: NotificationCreated) =>
  String(subscription.user_id) === event.recipientUserId

/** Mastodon skips pushes for notifications older than its push TTL (mastodon/mastodon#32842). */
export const isStale = (event: NotificationCreated) =>
  Date.now() - Date.parse(event.createdAt) > PUSH_TTL_SECONDS * 1000

/**
 * Sends pushes, each once ever (`pushAll`), and counts their outcomes in `push_deliveries_total` (`outcomes`, also
 * for the fan-out's and the retries' own: `stale`).
 */
export function createPusher(d: {
  db: Knex
  sender: PushSender
  claims: ReturnType<typeof createPushClaims>
  metrics: Registry
}) {
  const { db, sender, claims } = d
  const acknowledge = createAcknowledger(db)
  const outcomes = new Counter({
    name: 'push_deliveries_total',
    help: 'Push delivery attempts by outcome',
    labelNames: ['outcome'],
    registers: [d.metrics],
  })
  const latency = new Histogram({
    name: 'push_delivery_latency_seconds',
    help: 'Time from the notification to its push being accepted by the push service',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [d.metrics],
  })

  /**
   * Pushes of `event` to `subscription` (re-read by a retry: it may have gone or changed since), each once ever per
   * `deliveryId`: a delivery the push service has accepted is recorded in Postgres before the job that made it
   * completes, and one already recorded (`acknowledged`, read with the subscriptions) is not sent again; `holder`
   * (the job) claims the others in one Redis round trip (delivery/claims.ts) and sends those it got. A claim is let
   * go only when its push failed (for the retry job, or the job's next run); the claim of a push sent and recorded,
   * or ended for good, stays until it lapses, so a record that lands between another job's read and its claim
   * always finds that claim still held (docs/security.md). Each push's outcome, in order: a push service's failure
   * worth retrying is a RetryablePushError; one that will never succeed an UnrecoverableError; anything else
   * (Postgres down) fails the job, to be run again.
   */
  async function pushAll(pushes: Push[], holder: string): Promise<PromiseSettledResult<void>[]> {
    const results: PromiseSettledResult<void>[] = pushes.map(() => ({
      status: 'fulfilled',
      value: undefined,
    }))
    const sendable: number[] = []
    for (const [i, { subscription, event, acknowledged }] of pushes.entries()) {
      if (!subscription || !isPushable(subscription, event) || !ownedByRecipient(subscription, event))
        outcomes.inc({ outcome: 'skipped' })
      else if (acknowledged) outcomes.inc({ outcome: 'already_sent' })
      else if (!isP256PublicKey(subscription.key_p256dh) || !isAuthSecret(subscription.key_auth)) {
        try {
          await deleteById(db, String(subscription.id))
          outcomes.inc({ outcome: 'invalid_subscription' })
        } catch (reason) {
          results[i] = { status: 'rejected', reason }
        }
      } else sendable.push(i)
    }
    // Another job sending a push right now, or that has just sent it (the same event published twice), keeps it.
    const taken = await claims.takeAll(
      sendable.map((i) => pushes[i]!.deliveryId),
      holder,
    )
    const ours = sendable.filter((_, k) => taken[k])
    if (ours.length < sendable.length)
      outcomes.inc({ outcome: 'claimed_elsewhere' }, sendable.length - ours.length)
    const settled = await Promise.allSettled(
      ours.map((i) => sendOnce(pushes[i]!.subscription!, pushes[i]!.event, pushes[i]!.deliveryId)),
    )
    ours.forEach((i, k) => (results[i] = settled[k]!))
    await claims.releaseAll(
      ours.filter((_, k) => settled[k]!.status === 'rejected').map((i) => pushes[i]!.deliveryId),
      holder,
    )
    return results
  }

  async function sendOnce(subscription: SubscriptionRow, event: NotificationCreated, deliveryId: string) {
    let response
    try {
      response = await sender.send(subscription, pushPayload(event, subscription.access_token))
    } catch (err) {
      if (err instanceof PrivateAddressError) {
        outcomes.inc({ outcome: 'refused_address' })
        throw new UnrecoverableError(err.message) // no retry: the address will not become public
      }
      outcomes.inc({ outcome: 'network_error' })
      throw new RetryablePushError(0, 0, (err as Error).message)
    }
    const { status } = response
    if (status >= 200 && status < 300) {
      await acknowledge(deliveryId)
      outcomes.inc({ outcome: 'delivered' })
      latency.observe((Date.now() - Date.parse(event.createdAt)) / 1000)
      return
    }
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      // The push service says this subscription is gone or wrong (404, 410, 400, 403, 413…).
      await deleteById(db, String(subscription.id))
      return outcomes.inc({ outcome: 'subscription_removed' })
    }
    outcomes.inc({ outcome: 'retry' })
    const retryAfter = response.headers['retry-after']
    throw new RetryablePushError(
      status,
      parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
    )
  }

  return { pushAll, outcomes }
}
export type Pusher = ReturnType<typeof createPusher>
