import type { Knex } from '@roost/db'
import type { QuoteRow, StatusRow } from '../db/rows'
import { bigintArray } from '../queries/sql'

/**
 * Mastodon's Quote and ShallowQuote entities and a status's QuoteApproval (docs.joinmastodon.org/entities/Quote,
 * /ShallowQuote, /QuoteApproval; docs/statuses.md, "Quotes"). The state a viewer reads is the stored one, except
 * for an accepted quote: `deleted` once the quoted post is gone, `unauthorized` when the viewer may not see it,
 * `blocked_account`, `blocked_domain` or `muted_account` when the viewer hides its author (as Mastodon's
 * StatusSerializer#quote). `quoted_status` is given only for `accepted` (and, as Mastodon, the hidden ones).
 */

export interface QuoteView {
  state: string
  quoted_status_id: string | null
}

/** The viewer's states of the quotes of `statusIds`, by quoting status id, in one statement. */
export async function quoteViews(
  db: Knex,
  statusIds: string[],
  viewerId: string | undefined,
): Promise<Map<string, QuoteView>> {
  if (!statusIds.length) return new Map()
  const { rows } = await db.raw<{
    rows: (Pick<QuoteRow, 'status_id' | 'state' | 'quoted_status_id'> & {
      exists: boolean
      visible: boolean
      blocked: boolean
      domain_blocked: boolean
      muted: boolean
    })[]
  }>(
    `SELECT q.status_id::text AS status_id, q.state, q.quoted_status_id::text AS quoted_status_id,
            s.id IS NOT NULL AS exists,
            s.id IS NOT NULL AND a.suspended_at IS NULL AND (
              s.account_id = :viewer
              OR (NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = s.account_id AND b.target_account_id = :viewer)
                  AND (s.visibility IN ('public', 'unlisted')
                       OR (s.visibility = 'private' AND EXISTS (
                             SELECT 1 FROM follows f WHERE f.account_id = :viewer AND f.target_account_id = s.account_id))
                       OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = :viewer)))
            ) AS visible,
            EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = :viewer AND b.target_account_id = s.account_id) AS blocked,
            (a.domain IS NOT NULL AND EXISTS (
              SELECT 1 FROM account_domain_blocks d WHERE d.account_id = :viewer AND d.domain = a.domain)) AS domain_blocked,
            EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = :viewer AND m.target_account_id = s.account_id
                     AND (m.expires_at IS NULL OR m.expires_at > now())) AS muted
       FROM quotes q
       LEFT JOIN statuses s ON s.id = q.quoted_status_id
       LEFT JOIN accounts a ON a.id = s.account_id
      WHERE q.status_id = ANY(:ids::bigint[])`,
    { ids: bigintArray(statusIds), viewer: viewerId ?? null },
  )
  const views = new Map<string, QuoteView>()
  for (const r of rows) {
    let state: string = r.state
    if (state === 'accepted') {
      if (!r.exists) state = 'deleted'
      else if (!r.visible) state = 'unauthorized'
      else if (r.blocked) state = 'blocked_account'
      else if (r.domain_blocked) state = 'blocked_domain'
      else if (r.muted) state = 'muted_account'
    }
    const shown = ['accepted', 'blocked_account', 'blocked_domain', 'muted_account'].includes(state)
    views.set(r.status_id, { state, quoted_status_id: shown ? r.quoted_status_id : null })
  }
  return views
}

/** Mastodon's QuoteApproval: the status's policy, and how it applies to the viewer (`current_user`). */
export function quoteApproval(status: StatusRow, currentUser: string) {
  return {
    automatic: status.quote_automatic ?? [],
    manual: status.quote_manual ?? [],
    current_user: currentUser,
  }
}
