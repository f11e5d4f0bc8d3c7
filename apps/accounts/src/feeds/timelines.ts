import type { Knex } from '@roost/db'
import { paginate } from '@roost/db'
import type { Page } from '@roost/service'
import { blocks, hiddenAccounts, hideAccounts, NOBODY_HIDDEN } from '../domain/relationships'
import { authorStatusesVisibleTo } from '../domain/statuses'
import { findTags } from '../domain/tags'
import { normalizeTag } from '../text/hashtags'
import type { AccountRow, StatusRow } from '../db/rows'

/**
 * The statuses a timeline or a status list reads from Postgres: one page of rows, newest first, as `viewerId` (none:
 * signed out) may see them. Each takes the knex or transaction it runs in and the page (`readPage`) and knows
 * nothing of HTTP; the handler renders the rows and writes the Link header from them (`setPageLinks`). The home
 * and list feeds, kept in Redis, are in feeds/.
 */

/** Statuses with at least one attachment. */
const withMedia = (db: Knex, query: Knex.QueryBuilder) =>
  query.whereExists(db('media_attachments').whereRaw('media_attachments.status_id = statuses.id'))

/** The public timeline's filters: `local` alone gives local posts, `remote` alone those of other servers. */
export interface PublicFilters {
  local?: boolean
  remote?: boolean
  onlyMedia?: boolean
}

/**
 * GET /api/v1/timelines/public: public posts (no boosts) by authors neither suspended nor silenced; a signed-in
 * viewer does not see authors they block or mute, or who block them.
 */
export async function publicStatuses(
  db: Knex,
  viewerId: string | undefined,
  filters: PublicFilters,
  page: Page,
): Promise<StatusRow[]> {
  const { local, remote, onlyMedia } = filters
  const query = db('statuses')
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .where('statuses.visibility', 'public')
    .whereNull('statuses.reblog_of_id')
    .whereNull('accounts.suspended_at')
    .whereNull('accounts.silenced_at')
    .select('statuses.*')
  if (onlyMedia) withMedia(db, query)
  if (viewerId) hideAccounts(query, 'statuses.account_id', await hiddenAccounts(db, viewerId))
  // Mastodon's PublicFeed: `local` alone gives local posts, `remote` alone those of other servers. A local status
  // is one without a `uri`, and each kind has an index of its own (docs/performance.md, "Queries").
  if (local && !remote) query.whereNull('statuses.uri')
  if (remote && !local) query.whereNotNull('statuses.uri')
  return paginate<StatusRow>(query, 'statuses.id', page)
}

/** Mastodon's TagFeed::LIMIT_PER_MODE: `any`, `all` and `none` each count their first 4 names. */
const PER_MODE = 4

/** The hashtag timeline's filters: tag names in any spelling, and `local`/`remote`/`onlyMedia` as public's. */
export interface TagFilters extends PublicFilters {
  any?: string[]
  all?: string[]
  none?: string[]
}

/**
 * GET /api/v1/timelines/tag/:hashtag (docs/hashtags.md): public statuses tagged with `hashtag` or any of `any`,
 * with every tag of `all` and none of `none`; replies included; authors neither suspended nor silenced; a
 * signed-in viewer does not see authors they block or mute, or who block them. An unknown hashtag gives none;
 * unknown names in `all` and `none` are ignored.
 */
export async function taggedStatuses(
  db: Knex,
  viewerId: string | undefined,
  hashtag: string,
  filters: TagFilters,
  page: Page,
): Promise<StatusRow[]> {
  const idsOf = async (names: string[]) => (await findTags(db, names.slice(0, PER_MODE))).map((t) => t.id)
  // The hashtag counts among any[]'s four; names of all[] and none[] nobody used are ignored (Mastodon).
  const [known, anyIds, allIds, noneIds] = await Promise.all([
    findTags(db, [hashtag]),
    idsOf([hashtag, ...(filters.any ?? [])]),
    idsOf(filters.all ?? []),
    idsOf(filters.none ?? []),
  ])
  const tagged = (ids: string[]) =>
    db('status_tags').whereRaw('status_tags.status_id = statuses.id').whereIn('status_tags.tag_id', ids)

  const query = db('statuses')
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .where('statuses.visibility', 'public')
    .whereNull('accounts.suspended_at')
    .whereNull('accounts.silenced_at')
    .whereExists(tagged(anyIds))
    .select('statuses.*')
  for (const id of allIds) query.whereExists(tagged([id]))
  if (noneIds.length) query.whereNotExists(tagged(noneIds))
  if (filters.onlyMedia) withMedia(db, query)
  if (viewerId) hideAccounts(query, 'statuses.account_id', await hiddenAccounts(db, viewerId))
  // As the public timeline: `local` alone gives local posts, `remote` alone those of other servers.
  if (filters.local && !filters.remote) query.whereNull('accounts.domain')
  if (filters.remote && !filters.local) query.whereNotNull('accounts.domain')
  if (!known.length) return []
  return paginate<StatusRow>(query, 'statuses.id', page)
}

/** Mastodon's AccountStatusesFilter. */
export interface AccountStatusFilters {
  pinned?: boolean
  onlyMedia?: boolean
  /** Replies to others go; a thread of one's own posts stays. */
  excludeReplies?: boolean
  excludeReblogs?: boolean
  excludeDirect?: boolean
  /** A tag name, any spelling. */
  tagged?: string
}

/**
 * GET /api/v1/accounts/:id/statuses: `account`'s statuses that `viewerId` may see; none when the account is
 * suspended or blocks the viewer.
 */
export async function statusesOfAccount(
  db: Knex,
  account: AccountRow,
  viewerId: string | undefined,
  filters: AccountStatusFilters,
  page: Page,
): Promise<StatusRow[]> {
  const hidden = !!account.suspended_at || (!!viewerId && (await blocks(db, account.id, viewerId)))

  const query = db('statuses').where('statuses.account_id', account.id).select('statuses.*')
  // The author's suspension and blocks are known already (`hidden`): no per-row check of either.
  if (!hidden)
    await authorStatusesVisibleTo(
      db,
      query,
      account.id,
      viewerId,
      viewerId ? await hiddenAccounts(db, viewerId) : NOBODY_HIDDEN,
    )
  if (filters.excludeDirect) query.whereNot('statuses.visibility', 'direct')
  if (filters.pinned)
    query.whereExists(
      db('status_pins')
        .whereRaw('status_pins.status_id = statuses.id')
        .where('status_pins.account_id', account.id),
    )
  if (filters.onlyMedia) withMedia(db, query)
  // Replies to others go; a thread of one's own posts stays.
  if (filters.excludeReplies)
    query.where((q) =>
      q
        .whereNull('statuses.in_reply_to_id')
        .orWhereRaw('statuses.in_reply_to_account_id = statuses.account_id'),
    )
  if (filters.excludeReblogs) query.whereNull('statuses.reblog_of_id')
  if (filters.tagged !== undefined)
    query.whereExists(
      db('status_tags')
        .join('tags', 'tags.id', 'status_tags.tag_id')
        .whereRaw('status_tags.status_id = statuses.id')
        .where('tags.name', normalizeTag(filters.tagged)),
    )
  return hidden ? [] : paginate<StatusRow>(query, 'statuses.id', page)
}

/**
 * The signed-in user's bookmarks or favourites (Mastodon's BookmarksController and FavouritesController), paged
 * by the bookmark's or favourite's id (`page_id`), not the status's; statuses of suspended authors left out.
 */
export function markedStatuses(
  db: Knex,
  table: 'bookmarks' | 'favourites',
  accountId: string,
  page: Page,
): Promise<(StatusRow & { page_id: string })[]> {
  const query = db(table)
    .join('statuses', 'statuses.id', `${table}.status_id`)
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .where(`${table}.account_id`, accountId)
    .whereNull('accounts.suspended_at')
    .select('statuses.*', `${table}.id as page_id`)
  return paginate<StatusRow & { page_id: string }>(query, `${table}.id`, page)
}

/** The statuses of a page of feed ids (home, lists), in the ids' order; ids that no longer load are left out. */
export async function statusesInOrder(db: Knex, ids: string[]): Promise<StatusRow[]> {
  const loaded: StatusRow[] = ids.length ? await db('statuses').whereIn('id', ids) : []
  return ids.flatMap((id) => loaded.find((s) => s.id === id) ?? [])
}
