import type { Knex } from '@roost/db'
import { fetchJob, processor } from '@roost/events'
import type { Federation } from '../federation/transport/client'
import type { BoundedFetch } from '../federation/collections'
import type { AsyncRefreshes } from '../federation/async-refreshes'
import { backfillAccount } from '../activities/backfill'
import { fetchReplies } from '../activities/replies'

/**
 * The `fetches` queue's processor (docs/federation.md, "What is fetched when"): a remote account's outbox and
 * pinned posts (`fetch.outbox`), a remote thread's replies (`fetch.replies`, which then marks its async refresh
 * finished). Its own queue and concurrency, so that servers slow to answer hold none of the other queues' slots.
 */
export const fetchesProcessor = (d: {
  db: Knex
  federation: Federation
  fetch: BoundedFetch
  refreshes: AsyncRefreshes
  backfillStatuses: number
  concurrency: number
}) =>
  processor({
    schema: fetchJob,
    async process(job) {
      if (!d.federation.enabled) return
      if (job.event === 'fetch.outbox') {
        if (d.backfillStatuses <= 0) return
        const account = await d.db('accounts').where({ id: job.accountId }).first()
        if (!account?.domain || account.suspended_at) return
        await backfillAccount(d.federation, d.fetch, account, d.backfillStatuses)
        return
      }
      const status = await d.db('statuses').where({ id: job.statusId }).first()
      let added = 0
      try {
        if (status?.uri) added = await fetchReplies(d.federation, d.fetch, status)
      } finally {
        await d.refreshes.finish(job.refreshId, added)
      }
    },
    concurrency: d.concurrency,
  })
