import { createHash } from 'node:crypto'
import type { Queue } from 'bullmq'
import type { Delivery } from '@roost/events'
import type { AccountRow } from '../../db/rows'
import type { Federation } from './client'
import { isUnavailable } from './delivery-failures'
import { isDomainBlocked } from '../domain-blocks'
import { domainOf } from '../remote-accounts'

/**
 * Deliveries queued (docs/federation.md, "Delivery"): an activity becomes one job of the accounts worker's
 * `deliveries` queue per inbox; each job is one signed POST (`deliverNow`, delivery.ts).
 */

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
