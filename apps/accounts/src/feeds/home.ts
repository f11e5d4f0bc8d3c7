import type { Knex } from '@roost/db'
import type { StatusRow } from '../entities/status'
import type { FeedItem, FeedStore } from './store'
import { home, MAX_ITEMS } from './store'
import { admitsToHome, involvedAccounts, receiverFacts, statusFacts } from './filter'
import type { StatusFacts } from './filter'

/**
 * Home feeds (Mastodon's FanOutOnWriteService, FeedManager merges and PrecomputeFeedService; docs/feeds.md),
 * run by the accounts worker. Every operation re-reads what it needs from Postgres and is safe to repeat.
 */

/** Followers are read and written a page at a time, so memory stays flat whatever their number. */
export const FANOUT_PAGE = 1000
/** Statuses a new follow brings into the follower's feed (Mastodon: MAX_ITEMS / 4). */
const MERGE_LIMIT = MAX_ITEMS / 4
const FEED_VISIBILITIES = ['public', 'unlisted', 'private']

export interface HomeFeeds {
  db: Knex
  store: FeedStore
  /** Users who made no request for this many days get no fan-out (USER_ACTIVE_DAYS). */
  activeDays: number
}

const activeSince = (h: HomeFeeds) => h.db.raw(`now() - make_interval(days => ?)`, [h.activeDays])

/** Local followers of `accountId` active lately, after `afterFollowId`, a page in follow order. */
function activeLocalFollowers(h: HomeFeeds, accountId: string, afterFollowId: string) {
  return h
    .db('follows')
    .join('users', 'users.account_id', 'follows.account_id')
    .where('follows.target_account_id', accountId)
    .where('follows.id', '>', afterFollowId)
    .where('users.current_sign_in_at', '>', activeSince(h))
    .orderBy('follows.id')
    .limit(FANOUT_PAGE)
    .select('follows.id', 'follows.account_id') as Promise<{ id: string; account_id: string }[]>
}

/** Calls `each` with every page of `accountId`'s local followers (active ones only, unless `all`). */
async function forEachFollowerPage(
  h: HomeFeeds,
  accountId: string,
  each: (followerIds: string[]) => Promise<void>,
  all = false,
) {
  let after = '0'
  for (;;) {
    const page = all
      ? ((await h
          .db('follows')
          .join('users', 'users.account_id', 'follows.account_id')
          .where('follows.target_account_id', accountId)
          .where('follows.id', '>', after)
          .orderBy('follows.id')
          .limit(FANOUT_PAGE)
          .select('follows.id', 'follows.account_id')) as { id: string; account_id: string }[])
      : await activeLocalFollowers(h, accountId, after)
    if (page.length) await each(page.map((f) => f.account_id))
    if (page.length < FANOUT_PAGE) return
    after = page.at(-1)!.id
  }
}

async function isActive(h: HomeFeeds, accountId: string): Promise<boolean> {
  return !!(await h
    .db('users')
    .where({ account_id: accountId })
    .where('current_sign_in_at', '>', activeSince(h))
    .first('id'))
}

/**
 * A new status or reblog reaches its author's feed, and the feeds of local followers active lately that the
 * rules admit; a direct message only the mentioned ones among them.
 */
export async function fanOut(h: HomeFeeds, statusId: string) {
  const status: StatusRow | undefined = await h.db('statuses').where({ id: statusId }).first()
  if (!status) return
  const author = await h.db('accounts').where({ id: status.account_id }).first('suspended_at')
  if (!author || author.suspended_at) return
  const [facts] = await statusFacts(h.db, [status])
  await h.store.insert(home(status.account_id), [status])
  const involved = involvedAccounts([facts!])
  const deliver = async (receiverIds: string[]) => {
    const receivers = await receiverFacts(h.db, receiverIds, involved)
    const admitted = receiverIds.filter((id) => admitsToHome(facts!, id, receivers))
    await h.store.insertEverywhere(admitted.map(home), status)
  }
  if (status.visibility === 'direct') {
    if (!facts!.mentionIds.length) return
    const mentioned: string[] = await h
      .db('follows')
      .join('users', 'users.account_id', 'follows.account_id')
      .where('follows.target_account_id', status.account_id)
      .whereIn('follows.account_id', facts!.mentionIds)
      .where('users.current_sign_in_at', '>', activeSince(h))
      .pluck('follows.account_id')
    await deliver(mentioned)
    return
  }
  await forEachFollowerPage(h, status.account_id, deliver)
}

/** A deleted status (or reblog) leaves its author's feed and every local follower's. */
export async function removeEverywhere(h: HomeFeeds, authorId: string, item: FeedItem) {
  await h.store.remove(home(authorId), [item])
  await forEachFollowerPage(h, authorId, (ids) => h.store.removeEverywhere(ids.map(home), item), true)
}

/** Admits `statuses` to one receiver's feed through the rules, oldest first. */
async function insertFiltered(h: HomeFeeds, receiverId: string, statuses: StatusRow[]) {
  const facts = await statusFacts(h.db, statuses)
  const receivers = await receiverFacts(h.db, [receiverId], involvedAccounts(facts))
  const admitted = facts
    .filter((f: StatusFacts) => admitsToHome(f, receiverId, receivers))
    .map((f) => f.status)
  await h.store.insert(home(receiverId), admitted.reverse())
}

/**
 * A follow brings the followed account's newest 200 statuses into the follower's feed (only those newer than
 * the feed's oldest item once it holds that many). Nothing for a follower who is not active.
 */
export async function merge(h: HomeFeeds, followerId: string, targetId: string) {
  if (!(await isActive(h, followerId))) return
  const ids = await h.store.ids(home(followerId))
  const query = h
    .db('statuses')
    .where({ account_id: targetId })
    .whereIn('visibility', FEED_VISIBILITIES)
    .orderBy('id', 'desc')
    .limit(MERGE_LIMIT)
  if (ids.length >= MERGE_LIMIT) query.where('id', '>', ids.at(-1)!)
  await insertFiltered(h, followerId, await query)
}

/** The statuses in `receiverId`'s feed that match `where`, removed from it. */
async function removeMatching(h: HomeFeeds, receiverId: string, where: (q: Knex.QueryBuilder) => void) {
  const ids = await h.store.ids(home(receiverId))
  if (!ids.length) return
  const items: FeedItem[] = await h
    .db('statuses')
    .whereIn('id', ids)
    .where(where)
    .select('id', 'reblog_of_id')
  await h.store.remove(home(receiverId), items)
}

/** An unfollow takes the ex-followee's statuses and reblogs out of the feed. */
export async function unmerge(h: HomeFeeds, followerId: string, targetId: string) {
  await removeMatching(h, followerId, (q) => q.where({ account_id: targetId }))
}

/**
 * A block or mute clears the feed of everything by the target, reblogging the target, mentioning the target, or
 * reblogging what mentions the target (Mastodon's clear_from_home).
 */
export async function clearAccount(h: HomeFeeds, receiverId: string, targetId: string) {
  const db = h.db
  const byTarget = db('statuses').where({ account_id: targetId }).select('id')
  const mentioningTarget = db('mentions').where({ account_id: targetId }).select('status_id')
  await removeMatching(h, receiverId, (q) =>
    q
      .where({ account_id: targetId })
      .orWhereIn('reblog_of_id', byTarget)
      .orWhereIn('id', mentioningTarget)
      .orWhereIn('reblog_of_id', mentioningTarget),
  )
}

/**
 * Rebuilds a feed from Postgres (Mastodon's PrecomputeFeedService): the newest statuses of the account itself
 * (any visibility) and of the accounts it follows (public, unlisted, private), through the rules, until the feed
 * is full or 5 pages of candidates were read. The feed reads 206 until it is marked ready.
 */
export async function regenerate(h: HomeFeeds, accountId: string) {
  const feed = home(accountId)
  await h.store.claimRegeneration(feed) // a job asked for by someone else (or left over) still needs the mark
  let before: string | undefined
  for (let pages = 0; pages < 5; pages++) {
    const query = h
      .db('statuses')
      .where((q) =>
        q
          .where({ account_id: accountId })
          .orWhere((followed) =>
            followed
              .whereIn('visibility', FEED_VISIBILITIES)
              .whereIn(
                'account_id',
                h.db('follows').where({ account_id: accountId }).select('target_account_id'),
              ),
          ),
      )
      .orderBy('id', 'desc')
      .limit(MAX_ITEMS)
    if (before) query.where('id', '<', before)
    const statuses: StatusRow[] = await query
    await insertFiltered(h, accountId, statuses)
    if (statuses.length < MAX_ITEMS || (await h.store.ids(feed)).length >= MAX_ITEMS) break
    before = statuses.at(-1)!.id
  }
  await h.store.markReady(feed)
}
