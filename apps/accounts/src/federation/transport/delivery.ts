import { createHash } from 'node:crypto'
import type { Queue } from 'bullmq'
import { UnrecoverableError } from 'bullmq'
import type { Delivery } from '@roost/events'
import type { AccountRow } from '../../entities/account'
import type { Federation } from './client'
import { heardFrom, isUnavailable, recordFailure } from './delivery-failures'
import { isDomainBlocked } from '../domain-blocks'
import { domainOf } from '../remote-accounts'

/**
 * Deliveries (docs/federation.md, "Delivery"): an activity becomes one job of the accounts worker's `deliveries`
 * queue per inbox (`createDeliver`), and each job one signed POST (`deliverNow`).
 */

/**
 * One delivery attempt (Mastodon's ActivityPub::DeliveryWorker): nothing is sent to a host marked unavailable
 * or suspended by an admin domain block;
 * a 2xx is done (and the host's failures are forgotten); a 4xx other than 401, 408 and 429 will not get better
 * and is not retried; anything else (5xx, 401, 408, 429, no answer) throws, so BullMQ tries again with
 * exponential backoff. The last attempt that fails records a failure day for the host.
 */
export async function deliverNow(
  fed: Federation,
  d: Delivery,
  lastAttempt: boolean,
): Promise<'delivered' | 'skipped' | 'refused'> {
  const domain = domainOf(d.inbox)
  if (await isUnavailable(fed.db, domain)) return 'skipped'
  // Suspended since the job was queued (federation/domain-blocks.ts): dropped, as Mastodon's DeliveryWorker drops it.
  if (await isDomainBlocked(fed.db, domain)) return 'skipped'
  let failure: string
  try {
    const res = await fed.post(d.inbox, d.body, d.accountId)
    if (res.status >= 200 && res.status < 300) {
      await heardFrom(fed.db, domain)
      return 'delivered'
    }
    if (res.status >= 400 && res.status < 500 && ![401, 408, 429].includes(res.status))
      throw new UnrecoverableError(`${d.inbox} refused the activity (${res.status})`)
    failure = `${d.inbox} answered ${res.status}`
  } catch (err) {
    if (err instanceof UnrecoverableError) throw err
    failure = (err as Error).message
  }
  if (lastAttempt && (await recordFailure(fed.db, domain)))
    fed.logger.warn({ domain }, 'deliveries keep failing: the host is marked unavailable')
  throw new Error(failure)
}

/**
 * The inboxes that reach `recipients`: the personal inbox of a single recipient (as Mastodon sends a Follow or a
 * Block), the shared inbox of each host when several are addressed, each inbox once.
 */
export function inboxesOf(recipients: AccountRow[]): string[] {
  const remote = [
    // An account listed twice (a follower who is also mentioned) is one recipient.
    ...new Map(recipients.filter((r) => r.domain && r.inbox_url).map((r) => [r.inbox_url, r])).values(),
  ]
  const shared = remote.length > 1
  return [...new Set(remote.map((r) => (shared && r.shared_inbox_url) || r.inbox_url!))]
}

/** Delivery attempts per inbox: with the exponential backoff, retries span about a week at the default base. */
export const DELIVERY_ATTEMPTS = 14

export type Deliver = (
  activity: Record<string, unknown>,
  /** The local account that signs; null: the instance actor. */
  senderId: string | null,
  recipients: AccountRow[],
  key: string,
) => Promise<void>

/**
 * Queues one delivery job per inbox of `recipients` (hosts found unavailable, and suspended ones, are skipped). `key` names the
 * activity, so that the same activity queued twice (a job run again) is one job per inbox.
 */
export function createDeliver(fed: Federation, queue: Queue, retryBaseMs: number): Deliver {
  return async (activity, senderId, recipients, key) => {
    const body = JSON.stringify(activity)
    const jobs: { name: string; data: Delivery; opts: Record<string, unknown> }[] = []
    for (const inbox of inboxesOf(recipients)) {
      if (await isUnavailable(fed.db, domainOf(inbox))) continue
      // Nothing goes to a suspended server (federation/domain-blocks.ts).
      if (await isDomainBlocked(fed.db, domainOf(inbox))) continue
      const hash = createHash('sha256').update(inbox).digest('hex').slice(0, 16)
      jobs.push({
        name: 'delivery',
        data: { inbox, body, accountId: senderId },
        opts: {
          jobId: `${key}-${hash}`,
          attempts: DELIVERY_ATTEMPTS,
          backoff: { type: 'exponential', delay: retryBaseMs },
          removeOnComplete: { age: 60, count: 1000 },
          removeOnFail: { age: 7 * 24 * 3600 },
        },
      })
    }
    if (jobs.length) await queue.addBulk(jobs)
  }
}
