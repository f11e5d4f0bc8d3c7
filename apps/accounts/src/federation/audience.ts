import type { Knex } from '@roost/db'
import type { AccountRow, StatusRow } from '../db/rows'
import { bigintArray } from '../queries/sql'

/**
 * Who receives what local accounts do (docs/federation.md, "Posts across servers"): the remote accounts a post's
 * Create, Update or Delete goes to (Mastodon's StatusReachFinder), a boost's followers. Deliveries then go once to
 * each of their inboxes (transport/delivery-queue.ts).
 */

/** Remote accounts by id (local ones and unknown ids left out). */
export const remoteAccounts = async (db: Knex, ids: (string | null | undefined)[]): Promise<AccountRow[]> => {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))]
  return wanted.length ? db('accounts').whereIn('id', wanted).whereNotNull('domain') : []
}

/** The remote followers of a local account. */
export const remoteFollowers = (db: Knex, accountId: string): Promise<AccountRow[]> =>
  db('accounts')
    .join('follows', 'follows.account_id', 'accounts.id')
    .where('follows.target_account_id', accountId)
    .whereNotNull('accounts.domain')
    .select('accounts.*')

/**
 * Who receives a post's Create, Update or Delete (Mastodon's StatusReachFinder): the author's remote followers
 * unless it is direct, the mentioned remote accounts, and for a public or unlisted post the parent's remote author
 * and the remote accounts that boosted, favourited or answered it.
 */
export async function statusAudience(
  db: Knex,
  s: {
    accountId: string
    visibility: StatusRow['visibility']
    mentionedAccountIds: string[]
    inReplyToAccountId: string | null
    /** Remote accounts that boosted, favourited or answered it (public and unlisted posts). */
    reachedAccountIds?: string[]
  },
): Promise<AccountRow[]> {
  const distributable = s.visibility === 'public' || s.visibility === 'unlisted'
  const named = [
    ...new Set(
      [
        ...s.mentionedAccountIds,
        ...(distributable ? [s.inReplyToAccountId, ...(s.reachedAccountIds ?? [])] : []),
      ].filter((id): id is string => !!id),
    ),
  ]
  // The followers and the accounts named, in one statement. One set of ids, not `id IN (…) OR id IN (followers)`:
  // with the OR, Postgres walked every known account to test each against both (docs/performance.md, "Queries").
  const ids =
    s.visibility === 'direct'
      ? db.raw('SELECT unnest(?::bigint[])', [bigintArray(named)])
      : db.raw(
          'SELECT unnest(?::bigint[]) UNION SELECT account_id FROM follows WHERE target_account_id = ?',
          [bigintArray(named), s.accountId],
        )
  return db('accounts').whereNotNull('domain').whereRaw('id IN (?)', [ids]).orderBy('id')
}
