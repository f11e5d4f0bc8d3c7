import type { Knex } from '@roost/db'
import type { StatusRow } from '../db/rows'
import type { Feed, FeedStore } from './store'

/**
 * What realtime delivery (the streaming API's publisher) is told by fan-out: the one place it attaches. Mastodon
 * publishes `update` for each status a fan-out put into a home or list feed, `delete` for each one a removal
 * (deletion, block, mute) took out of one, and the public statuses with hashtags to the hashtag streams; merges,
 * unmerges and rebuilds publish nothing.
 */
export interface FeedListener {
  /** `status` went into these feeds (home of an account, or a list). */
  inserted(feeds: Feed[], status: StatusRow): Promise<void>
  /** The status `statusId` left these feeds. */
  removed(feeds: Feed[], statusId: string): Promise<void>
  /** `status`, in these feeds, was edited (Mastodon's `status.update`). */
  updated(feeds: Feed[], status: StatusRow): Promise<void>
  /** A public status (not a reblog, author not silenced) with these hashtags (normalised): the hashtag streams. */
  tagged?(status: StatusRow, tags: string[]): Promise<void>
}

/** What the feed code needs, built once by the accounts worker (docs/feeds.md). */
export interface Feeds {
  db: Knex
  /** Where regeneration reads its candidates: the read replica if any (docs/operations.md, "Read replica"); unset = db. */
  replica?: Knex
  store: FeedStore
  /** Users who made no request for this many days get no fan-out (USER_ACTIVE_DAYS). */
  activeDays: number
  listener?: FeedListener
}

/** Visibilities that reach followers' feeds and lists (Mastodon's list_eligible_visibility). */
export const FEED_VISIBILITIES = ['public', 'unlisted', 'private']

/** Followers (or list owners) are read and written a page at a time, so memory stays flat whatever their number. */
export const FANOUT_PAGE = 1000

export const activeSince = (f: Feeds) => f.db.raw(`now() - make_interval(days => ?)`, [f.activeDays])

export async function isActive(f: Feeds, accountId: string): Promise<boolean> {
  return !!(await f
    .db('users')
    .where({ account_id: accountId })
    .where('current_sign_in_at', '>', activeSince(f))
    .first('id'))
}

/**
 * Puts a status into the feeds one page of a fan-out admits, and tells the listener. For an edit (`edit`), the
 * page's `candidates` (every feed the page could reach) that hold the status already hear `updated`, and the
 * admitted ones that do not take it as new: an edit that adds a followed hashtag, or drops the mention of a muted
 * account, reaches the feeds that would have taken the status had it been posted so (Mastodon's fan-out with
 * `update`). Feeds are compared by type and id.
 */
export async function place(f: Feeds, status: StatusRow, admitted: Feed[], edit?: { candidates: Feed[] }) {
  let fresh = admitted
  if (edit) {
    const holding = await f.store.holding(edit.candidates, status.id)
    if (holding.length) await f.listener?.updated(holding, status)
    const held = new Set(holding.map((feed) => `${feed.type}:${feed.id}`))
    fresh = admitted.filter((feed) => !held.has(`${feed.type}:${feed.id}`))
  }
  const inserted = await f.store.insertEverywhere(fresh, status)
  if (inserted.length) await f.listener?.inserted(inserted, status)
}

/** Calls `each` with every page of a keyset query (`page(after)` reads up to FANOUT_PAGE rows after a key). */
export async function forEachPage<T extends { key: string }>(
  page: (after: string) => Promise<T[]>,
  each: (rows: T[]) => Promise<void>,
) {
  let after = '0'
  for (;;) {
    const rows = await page(after)
    if (rows.length) await each(rows)
    if (rows.length < FANOUT_PAGE) return
    after = rows.at(-1)!.key
  }
}
