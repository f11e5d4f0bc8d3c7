import type { Knex } from '@roost/db'
import { Invalid, NotFound } from '@roost/errors'
import type { AccountRow, FeaturedTagRow, StatusRow, TagRow } from '../db/rows'
import { visibleAccounts } from '../queries/accounts'
import { hiddenAccounts, hideAccounts } from './relationships'
import { findOrCreateTags } from './tags'
import { isTagName } from '../text/hashtags'

/**
 * Trends, follow suggestions, the profile directory and featured tags (docs/discovery.md), computed from
 * Postgres: Roost keeps no trend counters.
 */

/** How far back trends look. */
const TAG_TREND_DAYS = 7
const STATUS_TREND_DAYS = 2

/**
 * Trending tags: tags of public statuses (not boosts) of the last 7 days by authors neither suspended nor
 * silenced, most distinct authors first, then most uses, then most recent use; tags marked not trendable or not
 * listable are left out.
 */
export async function trendingTags(
  db: Knex,
  limit: number,
  offset: number,
  /** The moderators' review (docs/moderation.md): rejected tags too, so they can be approved again. */
  review = false,
): Promise<TagRow[]> {
  if (limit <= 0) return []
  return db('tags')
    .join('status_tags', 'status_tags.tag_id', 'tags.id')
    .join('statuses', 'statuses.id', 'status_tags.status_id')
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .where('statuses.created_at', '>', db.raw(`now() - interval '${TAG_TREND_DAYS} days'`))
    .where('statuses.visibility', 'public')
    .whereNull('statuses.reblog_of_id')
    .whereNull('accounts.suspended_at')
    .whereNull('accounts.silenced_at')
    .modify((q) => {
      if (!review) q.where((t) => t.whereNull('tags.trendable').orWhere('tags.trendable', true))
    })
    .where((t) => t.whereNull('tags.listable').orWhere('tags.listable', true))
    .groupBy('tags.id')
    .orderByRaw('count(DISTINCT statuses.account_id) DESC, count(*) DESC, max(statuses.id) DESC')
    .select('tags.*')
    .limit(limit)
    .offset(offset)
}

/**
 * Trending statuses: public statuses (not boosts) of the last 2 days by discoverable authors neither suspended
 * nor silenced, with at least one boost or favourite, most boosts and favourites first; a viewer does not see
 * authors they block or mute, or who block them.
 */
export async function trendingStatuses(
  db: Knex,
  limit: number,
  offset: number,
  viewerId?: string,
  /** The moderators' review (docs/moderation.md): rejected posts too. */
  review = false,
): Promise<StatusRow[]> {
  if (limit <= 0) return []
  const score = `(SELECT count(*) FROM statuses boosts WHERE boosts.reblog_of_id = statuses.id)
    + (SELECT count(*) FROM favourites WHERE favourites.status_id = statuses.id)`
  const query = db('statuses')
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .where('statuses.created_at', '>', db.raw(`now() - interval '${STATUS_TREND_DAYS} days'`))
    .where('statuses.visibility', 'public')
    .whereNull('statuses.reblog_of_id')
    .where('accounts.discoverable', true)
    .whereNull('accounts.suspended_at')
    .whereNull('accounts.silenced_at')
    .whereRaw(`${score} > 0`)
    // A post a moderator rejected never trends (Mastodon's `statuses.trendable`).
    .modify((q) => {
      if (!review) q.where((t) => t.whereNull('statuses.trendable').orWhere('statuses.trendable', true))
    })
    .select('statuses.*')
    .orderByRaw(`${score} DESC, statuses.id DESC`)
    .limit(limit)
    .offset(offset)
  if (viewerId) hideAccounts(query, 'statuses.account_id', await hiddenAccounts(db, viewerId))
  return query
}

export interface Suggestion {
  account: AccountRow
  source: 'past_interactions' | 'global'
  sources: ('friends_of_friends' | 'most_followed')[]
}

/**
 * Accounts to follow: those followed by the accounts the viewer follows (most such follows first), then the most
 * followed local accounts; only discoverable, visible accounts the viewer neither follows, asked to follow,
 * dismissed, blocks or mutes, nor is blocked by.
 */
export async function suggestions(db: Knex, viewerId: string, limit: number): Promise<Suggestion[]> {
  if (limit <= 0) return []
  const hidden = await hiddenAccounts(db, viewerId)
  const candidates = () => {
    const q = visibleAccounts(db)
      .where('accounts.discoverable', true)
      .whereNull('accounts.suspended_at')
      .whereNot('accounts.id', viewerId)
      .whereNotExists(
        db('follows')
          .where('follows.account_id', viewerId)
          .whereRaw('follows.target_account_id = accounts.id'),
      )
      .whereNotExists(
        db('follow_requests')
          .where('follow_requests.account_id', viewerId)
          .whereRaw('follow_requests.target_account_id = accounts.id'),
      )
      .whereNotExists(
        db('suggestion_dismissals')
          .where('suggestion_dismissals.account_id', viewerId)
          .whereRaw('suggestion_dismissals.target_account_id = accounts.id'),
      )
    hideAccounts(q, 'accounts.id', hidden)
    return q
  }
  const friends: AccountRow[] = await candidates()
    .join('follows as theirs', 'theirs.target_account_id', 'accounts.id')
    .join('follows as mine', 'mine.target_account_id', 'theirs.account_id')
    .where('mine.account_id', viewerId)
    .groupBy('accounts.id', 'users.role')
    .orderByRaw('count(*) DESC, accounts.id')
    .limit(limit)
  const out: Suggestion[] = friends.map((account) => ({
    account,
    source: 'past_interactions',
    sources: ['friends_of_friends'],
  }))
  if (out.length < limit) {
    const popular: AccountRow[] = await candidates()
      .whereNull('accounts.domain')
      .whereNotIn(
        'accounts.id',
        friends.map((f) => f.id),
      )
      .where('accounts.followers_count', '>', 0)
      .orderBy([
        { column: 'accounts.followers_count', order: 'desc' },
        { column: 'accounts.id', order: 'asc' },
      ])
      .limit(limit - out.length)
    for (const account of popular) out.push({ account, source: 'global', sources: ['most_followed'] })
  }
  return out
}

/** Dismisses a suggestion (idempotent). */
export async function dismissSuggestion(db: Knex, viewerId: string, targetId: string) {
  await db('suggestion_dismissals')
    .insert({ account_id: viewerId, target_account_id: targetId })
    .onConflict(['account_id', 'target_account_id'])
    .ignore()
}

/**
 * The profile directory: discoverable accounts neither suspended nor silenced (local ones only with `local`),
 * most recently active first (`active`) or newest first (`new`), without those the viewer blocks or mutes.
 */
export async function directory(
  db: Knex,
  o: { order: 'active' | 'new'; local: boolean; limit: number; offset: number; viewerId?: string },
): Promise<AccountRow[]> {
  if (o.limit <= 0) return []
  const query = visibleAccounts(db)
    .where('accounts.discoverable', true)
    .whereNull('accounts.suspended_at')
    .whereNull('accounts.silenced_at')
  if (o.local) query.whereNull('accounts.domain')
  if (o.viewerId) hideAccounts(query, 'accounts.id', await hiddenAccounts(db, o.viewerId))
  if (o.order === 'new') query.orderBy('accounts.id', 'desc')
  else query.orderByRaw('accounts.last_status_at DESC NULLS LAST, accounts.id DESC')
  return query.limit(o.limit).offset(o.offset)
}

/** At most this many featured tags per account (Mastodon's FeaturedTag::LIMIT). */
export const FEATURED_TAGS_LIMIT = 10

/** An account's featured tags with their counts (its public and unlisted statuses with the tag), most used first. */
export async function featuredTagsOf(db: Knex, accountId: string): Promise<FeaturedTagRow[]> {
  return db('featured_tags')
    .join('tags', 'tags.id', 'featured_tags.tag_id')
    .where('featured_tags.account_id', accountId)
    .select(
      'featured_tags.*',
      'tags.name',
      'tags.display_name',
      db.raw(
        `(SELECT count(*) FROM status_tags JOIN statuses ON statuses.id = status_tags.status_id
          WHERE status_tags.tag_id = featured_tags.tag_id AND statuses.account_id = featured_tags.account_id
            AND statuses.visibility IN ('public', 'unlisted') AND statuses.reblog_of_id IS NULL) AS statuses_count`,
      ),
      db.raw(
        `(SELECT max(statuses.created_at) FROM status_tags JOIN statuses ON statuses.id = status_tags.status_id
          WHERE status_tags.tag_id = featured_tags.tag_id AND statuses.account_id = featured_tags.account_id
            AND statuses.visibility IN ('public', 'unlisted') AND statuses.reblog_of_id IS NULL) AS last_status_at`,
      ),
    )
    .orderByRaw('statuses_count DESC, featured_tags.id')
}

/** Features a tag (made if new), in the caller's transaction; at most 10, each once. */
export async function featureTag(trx: Knex, accountId: string, name: string): Promise<TagRow> {
  if (!isTagName(name.replace(/^#/, ''))) throw new Invalid('Validation failed: Tag is invalid')
  const [tag] = await findOrCreateTags(trx, [name.replace(/^#/, '')])
  if (!tag) throw new Invalid('Validation failed: Tag is invalid')
  const [{ count }] = await trx('featured_tags').where({ account_id: accountId }).count('* as count')
  if (await trx('featured_tags').where({ account_id: accountId, tag_id: tag.id }).first('id'))
    throw new Invalid('Validation failed: Tag has already been taken')
  if (Number(count) >= FEATURED_TAGS_LIMIT)
    throw new Invalid('Validation failed: You have already featured the maximum number of hashtags')
  await trx('featured_tags').insert({ account_id: accountId, tag_id: tag.id })
  return tag
}

/** Stops featuring a featured tag of `accountId` by its id; else 404. */
export async function unfeatureTag(db: Knex, accountId: string, id: string | undefined) {
  const deleted = id ? await db('featured_tags').where({ id, account_id: accountId }).delete() : 0
  if (!deleted) throw new NotFound()
}

/** Up to 10 tags the account used lately that it does not feature (Mastodon's featured tag suggestions). */
export async function recentlyUsedTags(db: Knex, accountId: string): Promise<TagRow[]> {
  return db('tags')
    .join('status_tags', 'status_tags.tag_id', 'tags.id')
    .join('statuses', 'statuses.id', 'status_tags.status_id')
    .where('statuses.account_id', accountId)
    .whereNotExists(
      db('featured_tags')
        .where('featured_tags.account_id', accountId)
        .whereRaw('featured_tags.tag_id = tags.id'),
    )
    .groupBy('tags.id')
    .orderByRaw('max(statuses.id) DESC')
    .select('tags.*')
    .limit(10)
}
