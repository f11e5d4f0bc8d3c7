import type { Knex } from '@roost/db'
import type { StatusRow } from '../db/rows'
import type { Hidden } from './relationships'
import { hiddenAccounts, hideAccounts, NOBODY_HIDDEN } from './relationships'
import { visibleTo } from './statuses'

/** Mastodon's context limits: generous with a signed-in viewer, modest for anonymous readers. */
export const CONTEXT_LIMIT = 4096
export const ANONYMOUS_LIMITS = { ancestors: 40, descendants: 60, depth: 20 }

/**
 * Mastodon's StatusFilter on a statuses query: what the viewer may read (visibleTo), minus authors the viewer
 * blocks or mutes or who block the viewer (`hidden`, from `hiddenAccounts`), and silenced authors the viewer
 * does not follow. The viewer's own statuses always stay.
 */
export function permittedTo(
  db: Knex,
  query: Knex.QueryBuilder,
  viewerId?: string,
  hidden: Hidden = NOBODY_HIDDEN,
) {
  visibleTo(db, query, viewerId)
  query.where((q) => {
    q.whereNotExists(
      db('accounts as authors')
        .whereRaw('authors.id = statuses.account_id')
        .whereNotNull('authors.silenced_at'),
    )
    if (viewerId)
      q.orWhere('statuses.account_id', viewerId).orWhereExists(
        db('follows')
          .whereRaw('follows.target_account_id = statuses.account_id')
          .where('follows.account_id', viewerId),
      )
  })
  // Never the viewer's own account: nobody blocks or mutes themselves.
  return hideAccounts(query, 'statuses.account_id', hidden)
}

/** The statuses among `ids` the viewer may read, in the order of `ids`. */
export async function permittedStatuses(db: Knex, ids: string[], viewerId?: string): Promise<StatusRow[]> {
  if (!ids.length) return []
  const hidden = viewerId ? await hiddenAccounts(db, viewerId) : NOBODY_HIDDEN
  const rows: StatusRow[] = await permittedTo(
    db,
    db('statuses').whereIn('statuses.id', ids),
    viewerId,
    hidden,
  ).select('statuses.*')
  const byId = new Map(rows.map((r) => [r.id, r]))
  return ids.flatMap((id) => byId.get(id) ?? [])
}

/** The ids of a status's ancestors, nearest `limit` of them, root first. */
async function ancestorIds(db: Knex, status: StatusRow, limit: number): Promise<string[]> {
  if (!status.in_reply_to_id) return []
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `WITH RECURSIVE up(id, in_reply_to_id, path) AS (
       SELECT id, in_reply_to_id, ARRAY[id] FROM statuses WHERE id = ?
       UNION ALL
       SELECT s.id, s.in_reply_to_id, up.path || s.id
       FROM up JOIN statuses s ON s.id = up.in_reply_to_id
       WHERE NOT s.id = ANY(up.path)
     )
     SELECT id FROM up ORDER BY array_length(path, 1) LIMIT ?`,
    [status.in_reply_to_id, limit],
  )
  return rows.map((r) => r.id).reverse()
}

/**
 * The ids of a status's replies, depth-first in thread order (siblings oldest first), at most `limit` of them
 * and `depth` levels down (no bound when undefined).
 */
async function descendantIds(db: Knex, status: StatusRow, limit: number, depth?: number): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `WITH RECURSIVE down(id, path) AS (
       SELECT id, ARRAY[id] FROM statuses WHERE id = ?
       UNION ALL
       SELECT s.id, down.path || s.id
       FROM down JOIN statuses s ON s.in_reply_to_id = down.id
       WHERE (?::int IS NULL OR array_length(down.path, 1) <= ?::int) AND NOT s.id = ANY(down.path)
     )
     SELECT id FROM down WHERE id <> ? ORDER BY path LIMIT ?`,
    [status.id, depth ?? null, depth ?? null, status.id, limit],
  )
  return rows.map((r) => r.id)
}

/**
 * Mastodon's thread (Context) around a status the viewer can see: ancestors root first; descendants depth-first,
 * with the author's own continuations (self-replies) moved ahead of the other replies. Limits count before the
 * viewer's filter, as in Mastodon.
 */
export async function threadOf(db: Knex, status: StatusRow, viewerId?: string) {
  const limits = viewerId
    ? { ancestors: CONTEXT_LIMIT, descendants: CONTEXT_LIMIT, depth: undefined }
    : ANONYMOUS_LIMITS
  const [up, down] = await Promise.all([
    ancestorIds(db, status, limits.ancestors),
    descendantIds(db, status, limits.descendants, limits.depth),
  ])
  const [ancestors, replies] = await Promise.all([
    permittedStatuses(db, up, viewerId),
    permittedStatuses(db, down, viewerId),
  ])
  const selfReply = (s: StatusRow) => s.in_reply_to_account_id === s.account_id
  return { ancestors, descendants: [...replies.filter(selfReply), ...replies.filter((s) => !selfReply(s))] }
}
