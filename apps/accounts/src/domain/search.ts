import type { Knex } from '@roost/db'
import type { StatusRow, TagRow } from '../db/rows'
import { escapeLike } from '../queries/sql'
import { hiddenAccounts, hideAccounts } from './relationships'
import { findVisibleStatus, visibleTo } from './statuses'
import { normalizeTag } from '../text/hashtags'

/**
 * Search of statuses and hashtags (docs/discovery.md, "Search"). Statuses are searched in Postgres by full text
 * (the `status_search_vector` expression index), within what Mastodon's Elasticsearch indexes let a user find:
 * their own statuses, those they favourited, bookmarked, boosted or were mentioned in, and public statuses of
 * accounts that chose to be `indexable` — each still visible to them.
 */

export interface StatusSearch {
  q: string
  viewerId: string
  /** The viewer's language: a query is also stemmed in it. */
  language: string
  limit: number
  offset: number
  accountId?: string
  minId?: string
  maxId?: string
}

/** The statuses a viewer may find for `q`, newest first. */
export async function searchStatuses(db: Knex, s: StatusSearch): Promise<StatusRow[]> {
  if (!s.q.trim() || s.limit <= 0) return []
  const viewer = s.viewerId
  const query = db('statuses')
    .whereRaw(
      `status_search_vector(statuses.language, statuses.spoiler_text, statuses.text)
         @@ (websearch_to_tsquery('simple'::regconfig, ?) || websearch_to_tsquery(search_config(?), ?))`,
      [s.q, s.language, s.q],
    )
    .whereNull('statuses.reblog_of_id')
    .where((scope) =>
      scope
        .where('statuses.account_id', viewer)
        .orWhereExists(
          db('favourites').whereRaw('favourites.status_id = statuses.id').where('account_id', viewer),
        )
        .orWhereExists(
          db('bookmarks').whereRaw('bookmarks.status_id = statuses.id').where('account_id', viewer),
        )
        .orWhereExists(
          db('mentions').whereRaw('mentions.status_id = statuses.id').where('account_id', viewer),
        )
        .orWhereExists(
          db('statuses as boosts')
            .whereRaw('boosts.reblog_of_id = statuses.id')
            .where('boosts.account_id', viewer),
        )
        .orWhere((indexable) =>
          indexable
            .where('statuses.visibility', 'public')
            .whereExists(
              db('accounts').whereRaw('accounts.id = statuses.account_id').where('accounts.indexable', true),
            ),
        ),
    )
    .select('statuses.*')
  visibleTo(db, query, viewer)
  hideAccounts(query, 'statuses.account_id', await hiddenAccounts(db, viewer))
  if (s.accountId) query.where('statuses.account_id', s.accountId)
  if (s.maxId) query.where('statuses.id', '<', s.maxId)
  if (s.minId) query.where('statuses.id', '>', s.minId)
  return query.orderBy('statuses.id', 'desc').limit(s.limit).offset(s.offset)
}

/**
 * The local status a URL or URI of this server names (`/@user/ID`, `/users/user/statuses/ID`), when the viewer
 * may read it; undefined otherwise.
 */
export async function statusByUrl(
  db: Knex,
  base: string,
  q: string,
  viewerId: string,
): Promise<StatusRow | undefined> {
  const url = q.trim()
  if (!url.startsWith(`${base.replace(/\/$/, '')}/`)) return undefined
  const path = url.slice(base.replace(/\/$/, '').length).replace(/[?#].*$/, '')
  const m = /^\/(?:@[A-Za-z0-9_]+|users\/[A-Za-z0-9_]+\/statuses)\/(\d{1,19})\/?$/.exec(path)
  if (!m) return undefined
  return findVisibleStatus(db, m[1], viewerId).catch(() => undefined)
}

/**
 * Hashtags whose name starts with `q` (a leading `#` dropped, compared normalised), listable ones only, shortest
 * name first, as Mastodon's SQL search.
 */
export async function searchHashtags(db: Knex, q: string, limit: number, offset: number): Promise<TagRow[]> {
  const term = normalizeTag(q.trim().replace(/^[#＃]/, ''))
  if (!term || limit <= 0) return []
  return db('tags')
    .whereRaw('tags.name LIKE ?', [`${escapeLike(term)}%`])
    .where((l) => l.whereNull('tags.listable').orWhere('tags.listable', true))
    .orderByRaw('length(tags.name), tags.name')
    .limit(limit)
    .offset(offset)
}
