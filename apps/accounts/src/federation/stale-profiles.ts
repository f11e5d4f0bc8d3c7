import type { Knex } from '@roost/db'
import type { AccountRow } from '../db/rows'
import * as outbox from '../outbox/outbox'

/**
 * A remote profile opened by a local user (docs/federation.md, "Backfill of remote profiles"): when its outbox was
 * last read (or, never read, the account was stored) longer than `staleHours` ago, it is marked read now and a
 * `fetch.outbox` job is written in the same transaction, so that readers opening it together start one fetch. The
 * request answers with what is stored; the worker fills in.
 */
export async function refreshStaleProfile(
  db: Knex,
  account: AccountRow,
  staleHours: number,
): Promise<boolean> {
  if (!account.domain || !account.outbox_url || account.suspended_at || staleHours <= 0) return false
  const last = account.backfilled_at ?? account.created_at
  if (last && Date.now() - new Date(last).getTime() < staleHours * 3600_000) return false
  return db.transaction(async (trx) => {
    const marked = await trx('accounts')
      .where({ id: account.id })
      .whereRaw('coalesce(backfilled_at, created_at) < now() - make_interval(secs => ?)', [staleHours * 3600])
      .update({ backfilled_at: trx.fn.now() })
    if (marked) await outbox.add(trx, { event: 'fetch.outbox', accountId: account.id })
    return marked > 0
  })
}
