import { DelayedError } from 'bullmq'
import { Counter } from 'prom-client'
import type { Registry } from 'prom-client'
import { delivery, processor } from '@roost/events'
import type { Federation } from '../federation/transport/client'
import { deliverNow } from '../federation/transport/delivery'
import type { HostSlots } from '../federation/transport/host-slots'
import { domainOf } from '../federation/remote-accounts'

/** A delivery to a host with every slot taken waits this long (up to twice, jittered) before trying again. */
const HOST_BUSY_DELAY_MS = 250

/**
 * The `deliveries` queue's processor: one signed POST to one inbox (docs/federation.md, "Delivery"), when the host
 * has a free slot; a job that finds the host busy waits a moment in the delayed set without spending an attempt.
 */
export function deliveriesProcessor(
  federation: Federation,
  hostSlots: HostSlots,
  metrics: Registry,
  concurrency: number,
) {
  const outcomes = new Counter({
    name: 'federation_deliveries_total',
    help: 'Delivery attempts to other servers, by outcome (delivered, skipped, host_busy)',
    labelNames: ['outcome'],
    registers: [metrics],
  })
  return processor({
    schema: delivery,
    async process(d, job, token) {
      const host = domainOf(d.inbox)
      const holder = job.id!
      if (!(await hostSlots.acquire(host, holder))) {
        outcomes.inc({ outcome: 'host_busy' })
        await job.moveToDelayed(Date.now() + HOST_BUSY_DELAY_MS * (1 + Math.random()), token)
        throw new DelayedError()
      }
      try {
        const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1)
        outcomes.inc({ outcome: await deliverNow(federation, d, lastAttempt) })
      } finally {
        await hostSlots.release(host, holder)
      }
    },
    concurrency,
    // A failed delivery is routine (the other server is down) and will be retried: not a warning.
    failureLevel: 'info',
  })
}
