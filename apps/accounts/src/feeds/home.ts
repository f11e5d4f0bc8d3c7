import type { Page } from '@roost/service'
import type { StatusRow } from '../db/rows'
import type { Feeds } from './context'
import { activeSince, FANOUT_PAGE, FEED_VISIBILITIES, forEachPage, isActive } from './context'
import { admitsToHome, involvedAccounts, receiverFacts, statusFacts } from './filter'
import type { StatusFacts } from './filter'
import {
  byAccount,
  insertAdmitted,
  involvingAccount,
  mergeCandidates,
  removeMatching,
  reportRemoved,
} from './ops'
import { home, MAX_ITEMS } from './store'

/**
 * Home feeds (Mastodon's FeedManager merges and PrecomputeFeedService; docs/feeds.md), run by the accounts
 * worker; fan-out of new statuses is in fanout.ts. Every operation re-reads what it needs from Postgres and is
 * safe to repeat.
 */

/**
 * Calls `each` with every page of `accountId`'s local followers (active ones only, unless `all`), read by keyset
 * on the follow id, FANOUT_PAGE at a time.
 */
export function forEachFollowerPage(
  f: Feeds,
  accountId: string,
  each: (followerIds: string[]) => Promise<void>,
  all = false,
) {
  return forEachPage(
    (after) => {
      const query = f
        .db('follows')
        .join('users', 'users.account_id', 'follows.account_id')
        .where('follows.target_account_id', accountId)
        .where('follows.id', '>', after)
        .orderBy('follows.id')
        .limit(FANOUT_PAGE)
        .select('follows.id as key', 'follows.account_id')
      if (!all) query.where('users.current_sign_in_at', '>', activeSince(f))
      return query as Promise<{ key: string; account_id: string }[]>
    },
    (rows) => each(rows.map((r) => r.account_id)),
  )
}

/** The rules of one receiver's home feed, over a batch of statuses' facts. */
const homeRules = (f: Feeds, receiverId: string) => async (facts: StatusFacts[]) => {
  const receivers = await receiverFacts(f.db, [receiverId], involvedAccounts(facts))
  return facts.filter((s) => admitsToHome(s, receiverId, receivers))
}

/** Admits statuses to one receiver's home feed through the rules. */
async function insertFiltered(f: Feeds, receiverId: string, statuses: StatusRow[]) {
  await insertAdmitted(f, home(receiverId), statuses, homeRules(f, receiverId))
}

/**
 * A follow brings the followed account's newest 200 statuses into the follower's feed (only those newer than
 * the feed's oldest item once it holds that many). Nothing for a follower who is not active.
 */
export async function merge(f: Feeds, followerId: string, targetId: string) {
  if (!(await isActive(f, followerId))) return
  await insertFiltered(f, followerId, await mergeCandidates(f, home(followerId), targetId))
}

/** An unfollow takes the ex-followee's statuses and reblogs out of the feed (no realtime event, as Mastodon). */
export async function unmerge(f: Feeds, followerId: string, targetId: string) {
  await removeMatching(f, home(followerId), byAccount(targetId))
}

/**
 * A block or mute clears the feed of everything by the target, reblogging the target, mentioning the target, or
 * reblogging what mentions the target (Mastodon's clear_from_home).
 */
export async function clearAccount(f: Feeds, receiverId: string, targetId: string) {
  const feed = home(receiverId)
  await reportRemoved(f, feed, await removeMatching(f, feed, involvingAccount(f.db, targetId)))
}

/**
 * The statuses a home feed is built from, newest first: the account's own (any visibility) and those of the
 * accounts it follows (public, unlisted, private), before the rules (Mastodon's PrecomputeFeedService).
 */
function homeCandidates(f: Feeds, accountId: string) {
  return f
    .db('statuses')
    .where((q) =>
      q
        .where({ account_id: accountId })
        .orWhere((followed) =>
          followed
            .whereIn('visibility', FEED_VISIBILITIES)
            .whereIn(
              'account_id',
              f.db('follows').where({ account_id: accountId }).select('target_account_id'),
            ),
        ),
    )
}

/**
 * Rebuilds a feed from Postgres (Mastodon's PrecomputeFeedService): the candidates, through the rules, until the
 * feed is full or 5 pages of candidates were read. The feed reads 206 until it is marked ready.
 */
export async function regenerate(f: Feeds, accountId: string) {
  const feed = home(accountId)
  await f.store.claimRegeneration(feed) // a job asked for by someone else (or left over) still needs the mark
  let before: string | undefined
  for (let pages = 0; pages < 5; pages++) {
    const query = homeCandidates({ ...f, db: f.replica ?? f.db }, accountId)
      .orderBy('id', 'desc')
      .limit(MAX_ITEMS)
    if (before) query.where('id', '<', before)
    const statuses: StatusRow[] = await query
    await insertFiltered(f, accountId, statuses)
    if (statuses.length < MAX_ITEMS || (await f.store.ids(feed)).length >= MAX_ITEMS) break
    before = statuses.at(-1)!.id
  }
  await f.store.markReady(feed)
}

/**
 * A feed found missing is rebuilt in the read that found it when its owner follows at most this many accounts:
 * the rebuild then reads a few hundred candidates at most, in tens of milliseconds, and the reader gets a whole
 * feed at once (200). Above it, the accounts worker rebuilds the feed and reads answer 206 meanwhile.
 */
export const INLINE_REBUILD_FOLLOWS = 100

/** Whether `accountId`'s home feed is small enough to rebuild within a request (INLINE_REBUILD_FOLLOWS). */
export async function rebuildsInline(f: Feeds, accountId: string): Promise<boolean> {
  const follows = await f
    .db('follows')
    .where({ account_id: accountId })
    .limit(INLINE_REBUILD_FOLLOWS + 1)
    .select('id')
  return follows.length <= INLINE_REBUILD_FOLLOWS
}

/**
 * One page of the home feed read from Postgres, for the reads while the feed is rebuilt (206): the newest
 * candidates the rules admit, within the page's cursors, a batch of candidates at a time (at most five), so that
 * a returning user sees the newest statuses at once rather than an empty page.
 */
export async function pageFromPostgres(f: Feeds, accountId: string, page: Page): Promise<string[]> {
  if (page.limit === 0) return []
  const ascending = !!page.minId // min_id reads the page just above it, oldest first, then turns it round
  const batch = Math.max(page.limit * 2, 40)
  const found: string[] = []
  let edge: string | undefined
  for (let batches = 0; batches < 5 && found.length < page.limit; batches++) {
    const query = homeCandidates(f, accountId)
      .orderBy('id', ascending ? 'asc' : 'desc')
      .limit(batch)
    if (page.maxId) query.where('id', '<', page.maxId)
    if (page.minId ?? page.sinceId) query.where('id', '>', page.minId ?? page.sinceId!)
    if (edge) query.where('id', ascending ? '>' : '<', edge)
    const statuses: StatusRow[] = await query
    const admitted = await homeRules(f, accountId)(await statusFacts(f.db, statuses))
    found.push(...admitted.map((s) => s.status.id))
    if (statuses.length < batch) break
    edge = statuses.at(-1)!.id
  }
  const ids = found.slice(0, page.limit)
  return ascending ? ids.reverse() : ids
}
