import { UnrecoverableError } from 'bullmq'
import type { Delivery } from '@roost/events'
import type { Federation } from './client'
import { heardFrom, isUnavailable, recordFailure } from './delivery-failures'
import { isDomainBlocked } from '../domain-blocks'
import { domainOf } from '../remote-accounts'

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
  // Suspended since the job was queued (domain-blocks.ts): dropped, as Mastodon's DeliveryWorker drops it.
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
