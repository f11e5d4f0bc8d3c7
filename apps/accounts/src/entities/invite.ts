import type { InviteRow } from '../db/rows'

/**
 * An invite as the Roost API renders it (GET/POST /api/v1/invites): Mastodon has no client API for invites, so
 * these are the fields of its Invite model and of its settings page (docs/mastodon-compatibility.md, "Invites").
 */
export function renderInvite(row: InviteRow, base: string) {
  return {
    id: row.id,
    code: row.code,
    url: `${base}/invite/${row.code}`,
    uses: row.uses,
    max_uses: row.max_uses,
    expires_at: row.expires_at ? new Date(row.expires_at).toISOString() : null,
    comment: row.comment,
    created_at: new Date(row.created_at).toISOString(),
  }
}
