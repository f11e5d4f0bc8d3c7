import type { Knex } from '@roost/db'
import type { StatusRow } from '../db/rows'
import type { StatusFacts } from './filter'
import { statusFacts } from './filter'
import type { Feeds } from './context'
import { FEED_VISIBILITIES } from './context'
import type { Feed, FeedItem } from './store'
import { MAX_ITEMS } from './store'

/** Statuses a merge brings into a feed (Mastodon: MAX_ITEMS / 4). */
export const MERGE_LIMIT = MAX_ITEMS / 4

/** Admits `statuses` (newest first) to one feed through `admit`, oldest first as they would have arrived. */
export async function insertAdmitted(
  f: Feeds,
  feed: Feed,
  statuses: StatusRow[],
  admit: (facts: StatusFacts[]) => Promise<StatusFacts[]>,
) {
  const admitted = await admit(await statusFacts(f.db, statuses))
  await f.store.insert(feed, admitted.map((a) => a.status).reverse())
}

/**
 * The newest 200 statuses of `accountId` a merge brings into `feed` (public, unlisted, private; only those newer
 * than the feed's oldest item once it holds that many), newest first.
 */
export async function mergeCandidates(f: Feeds, feed: Feed, accountId: string): Promise<StatusRow[]> {
  const ids = await f.store.ids(feed)
  const query = f
    .db('statuses')
    .where({ account_id: accountId })
    .whereIn('visibility', FEED_VISIBILITIES)
    .orderBy('id', 'desc')
    .limit(MERGE_LIMIT)
  if (ids.length >= MERGE_LIMIT) query.where('id', '>', ids.at(-1)!)
  return query
}

/** The statuses in `feed` that match `where`, removed from it; returns those that were in it. */
export async function removeMatching(
  f: Feeds,
  feed: Feed,
  where: (q: Knex.QueryBuilder) => void,
): Promise<FeedItem[]> {
  const ids = await f.store.ids(feed)
  if (!ids.length) return []
  const items: FeedItem[] = await f
    .db('statuses')
    .whereIn('id', ids)
    .where(where)
    .select('id', 'reblog_of_id')
  return f.store.remove(feed, items)
}

/** Statuses by the target (theirs and their reblogs): what an unfollow takes out. */
export const byAccount = (targetId: string) => (q: Knex.QueryBuilder) => q.where({ account_id: targetId })

/**
 * What a block or mute takes out (Mastodon's clear_from_home and clear_from_list): statuses by the target,
 * reblogs of theirs, statuses mentioning them and reblogs of those.
 */
export const involvingAccount = (db: Knex, targetId: string) => (q: Knex.QueryBuilder) => {
  const byTarget = db('statuses').where({ account_id: targetId }).select('id')
  const mentioningTarget = db('mentions').where({ account_id: targetId }).select('status_id')
  return q
    .where({ account_id: targetId })
    .orWhereIn('reblog_of_id', byTarget)
    .orWhereIn('id', mentioningTarget)
    .orWhereIn('reblog_of_id', mentioningTarget)
}

/** Tells the listener (streaming) what a removal took out, status by status. */
export async function reportRemoved(f: Feeds, feed: Feed, removed: FeedItem[]) {
  if (!f.listener) return
  for (const item of removed) await f.listener.removed([feed], item.id)
}
