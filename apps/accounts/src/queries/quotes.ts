import type { Knex } from '@roost/db'
import type { StatusRow } from '../db/rows'
import { bigintArray } from './sql'

/** How someone may quote a status (Mastodon's Status#quote_policy_for_account; docs/statuses.md, "Quotes"). */
export type QuotePermission = 'automatic' | 'manual' | 'denied' | 'unknown'

/**
 * Mastodon's Status#quote_policy_for_account for `viewerId`, given whether the viewer follows the status's author
 * (`following`) and the author follows the viewer (`followed`).
 */
export function quotePermissionFrom(
  status: Pick<StatusRow, 'account_id' | 'visibility' | 'reblog_of_id' | 'quote_automatic' | 'quote_manual'>,
  viewerId: string | undefined,
  rel: { following: boolean; followed: boolean },
): QuotePermission {
  if (!viewerId || status.visibility === 'direct' || status.reblog_of_id) return 'denied'
  if (status.account_id === viewerId) return 'automatic'
  if (status.visibility !== 'public' && status.visibility !== 'unlisted') return 'denied'
  const automatic = status.quote_automatic ?? []
  const manual = status.quote_manual ?? []
  const admits = (keys: string[]) =>
    keys.includes('public') ||
    (keys.includes('followers') && rel.following) ||
    (keys.includes('following') && rel.followed)
  if (admits(automatic)) return 'automatic'
  if (admits(manual)) return 'manual'
  if (automatic.includes('unsupported_policy') || manual.includes('unsupported_policy')) return 'unknown'
  return 'denied'
}

/** Which of `authorIds` the viewer follows, and which follow the viewer, in one statement. */
export async function followsBothWays(db: Knex, viewerId: string | undefined, authorIds: string[]) {
  const following = new Set<string>()
  const followed = new Set<string>()
  if (!viewerId || !authorIds.length) return { following, followed }
  const { rows } = await db.raw<{ rows: { account_id: string; target_account_id: string }[] }>(
    `SELECT account_id::text, target_account_id::text FROM follows
      WHERE (account_id = :viewer AND target_account_id = ANY(:ids::bigint[]))
         OR (target_account_id = :viewer AND account_id = ANY(:ids::bigint[]))`,
    { viewer: viewerId, ids: bigintArray([...new Set(authorIds)]) },
  )
  for (const r of rows)
    if (r.account_id === viewerId) following.add(r.target_account_id)
    else followed.add(r.account_id)
  return { following, followed }
}
