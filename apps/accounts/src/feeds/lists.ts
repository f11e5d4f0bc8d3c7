import type { ListRow, StatusRow } from '../db/rows'
import type { Feeds } from './context'
import { activeSince, FANOUT_PAGE, FEED_VISIBILITIES, forEachPage, isActive, place } from './context'
import type { ListFacts, StatusFacts } from './filter'
import { admitsToList, involvedAccounts, listMembers, receiverFacts } from './filter'
import {
  byAccount,
  insertAdmitted,
  involvingAccount,
  mergeCandidates,
  removeMatching,
  reportRemoved,
} from './ops'
import type { Feed, FeedItem } from './store'
import { list as listFeed, MAX_ITEMS } from './store'

/**
 * List feeds (docs/feeds.md, "Lists"): a feed per list, kept like home feeds for active owners, with the list's
 * replies policy in place of the owner's follows for replies.
 */

/**
 * Calls `each` with every page of the lists `authorId` is a member of, by keyset on the member row. `forFanOut`:
 * only lists whose owner is active and follows the author (a pending request is not enough), or owns the list.
 */
export function forEachListPage(
  f: Feeds,
  authorId: string,
  each: (lists: ListRow[]) => Promise<void>,
  forFanOut: boolean,
) {
  return forEachPage<ListRow & { key: string }>((after) => {
    const query = f
      .db('list_accounts')
      .join('lists', 'lists.id', 'list_accounts.list_id')
      .where('list_accounts.account_id', authorId)
      .where('list_accounts.id', '>', after)
      .orderBy('list_accounts.id')
      .limit(FANOUT_PAGE)
      .select('list_accounts.id as key', 'lists.id', 'lists.account_id', 'lists.replies_policy')
    if (forFanOut)
      query
        .where((q) => q.whereNotNull('list_accounts.follow_id').orWhere('lists.account_id', authorId))
        .whereExists(
          f
            .db('users')
            .whereRaw('users.account_id = lists.account_id')
            .where('users.current_sign_in_at', '>', activeSince(f)),
        )
    return query as Promise<(ListRow & { key: string })[]>
  }, each)
}

/** The lists of a batch that take this status, by their rules; the owners' facts in one go. */
async function admittingLists(f: Feeds, facts: StatusFacts, lists: ListRow[]): Promise<Feed[]> {
  const involved = involvedAccounts([facts])
  const [owners, withMembers] = await Promise.all([
    receiverFacts(f.db, [...new Set(lists.map((l) => l.account_id))], involved),
    listMembers(f.db, lists, involved),
  ])
  return withMembers.filter((l) => admitsToList(facts, l, owners)).map((l) => listFeed(l.id))
}

/** A new status or reblog reaches the lists its author is in (fan-out, fanout.ts; `edit`: see `place`). */
export async function fanOutToLists(f: Feeds, facts: StatusFacts, edit = false) {
  const status = facts.status
  await forEachListPage(
    f,
    status.account_id,
    async (lists) =>
      place(
        f,
        status,
        await admittingLists(f, facts, lists),
        edit ? { candidates: lists.map((l) => listFeed(l.id)) } : undefined,
      ),
    true,
  )
}

/** A deleted status leaves every list its author is in (fanout.ts). */
export async function removeFromLists(f: Feeds, authorId: string, item: FeedItem) {
  await forEachListPage(
    f,
    authorId,
    async (lists) => {
      const removed = await f.store.removeEverywhere(
        lists.map((l) => listFeed(l.id)),
        item,
      )
      if (removed.length) await f.listener?.removed(removed, item.id)
    },
    false,
  )
}

async function findList(f: Feeds, listId: string): Promise<ListRow | undefined> {
  return f.db('lists').where({ id: listId }).first('id', 'account_id', 'replies_policy')
}

/** Admits statuses to one list's feed through its rules. */
async function insertFiltered(f: Feeds, row: ListRow, statuses: StatusRow[]) {
  await insertAdmitted(f, listFeed(row.id), statuses, async (facts) => {
    const involved = involvedAccounts(facts)
    const [owner, [list]] = await Promise.all([
      receiverFacts(f.db, [row.account_id], involved),
      listMembers(f.db, [row], involved),
    ])
    return facts.filter((s) => admitsToList(s, list as ListFacts, owner))
  })
}

/** Whether `accountId` is an active member of the list (followed by the owner, or the owner). */
async function activeMember(f: Feeds, row: ListRow, accountId: string): Promise<boolean> {
  return !!(await f
    .db('list_accounts')
    .where({ list_id: row.id, account_id: accountId })
    .where((q) => (row.account_id === accountId ? q : q.whereNotNull('follow_id')))
    .first('id'))
}

/**
 * A member added (or a pending member's request accepted) brings their newest 200 statuses into the list's
 * feed, through its rules. Nothing for an inactive owner or a member the owner does not follow (yet).
 */
export async function mergeIntoList(f: Feeds, listId: string, targetId: string) {
  const row = await findList(f, listId)
  if (!row || !(await isActive(f, row.account_id)) || !(await activeMember(f, row, targetId))) return
  await insertFiltered(f, row, await mergeCandidates(f, listFeed(row.id), targetId))
}

/** A follow (or an accepted request, or an unmute) merges the target into the owner's lists that hold them. */
export async function mergeIntoLists(f: Feeds, ownerId: string, targetId: string) {
  const ids: string[] = await f
    .db('list_accounts')
    .join('lists', 'lists.id', 'list_accounts.list_id')
    .where({ 'lists.account_id': ownerId, 'list_accounts.account_id': targetId })
    .pluck('lists.id')
  for (const id of ids) await mergeIntoList(f, id, targetId)
}

/** A member removed: their statuses and reblogs leave the list's feed. */
export async function unmergeFromList(f: Feeds, listId: string, targetId: string) {
  await removeMatching(f, listFeed(listId), byAccount(targetId))
}

const listsOf = (f: Feeds, ownerId: string): Promise<string[]> =>
  f.db('lists').where({ account_id: ownerId }).pluck('id')

/**
 * An unfollow takes the ex-followee out of every list of the follower (the member rows went with the follow, so
 * every list is looked at: at most 50).
 */
export async function unmergeFromLists(f: Feeds, ownerId: string, targetId: string) {
  for (const id of await listsOf(f, ownerId)) await unmergeFromList(f, id, targetId)
}

/** A block or mute clears every list of the owner as it clears home (Mastodon's clear_from_lists). */
export async function clearFromLists(f: Feeds, ownerId: string, targetId: string) {
  for (const id of await listsOf(f, ownerId)) {
    const feed = listFeed(id)
    await reportRemoved(f, feed, await removeMatching(f, feed, involvingAccount(f.db, targetId)))
  }
}

/**
 * Rebuilds a list's feed from Postgres (Mastodon's populate_list): the newest statuses of its active members
 * (public, unlisted, private), through its rules, until the feed is full or 5 pages of candidates were read.
 * Reads answer 206 until it is marked ready. A deleted list's feed is dropped instead.
 */
export async function regenerateList(f: Feeds, listId: string) {
  const feed = listFeed(listId)
  const row = await findList(f, listId)
  if (!row) {
    await f.store.drop(feed)
    return
  }
  await f.store.claimRegeneration(feed)
  const members = f
    .db('list_accounts')
    .where({ list_id: row.id })
    .where((q) => q.whereNotNull('follow_id').orWhere('account_id', row.account_id))
    .select('account_id')
  let before: string | undefined
  for (let pages = 0; pages < 5; pages++) {
    const query = f
      .db('statuses')
      .whereIn('account_id', members)
      .whereIn('visibility', FEED_VISIBILITIES)
      .orderBy('id', 'desc')
      .limit(MAX_ITEMS)
    if (before) query.where('id', '<', before)
    const statuses: StatusRow[] = await query
    await insertFiltered(f, row, statuses)
    if (statuses.length < MAX_ITEMS || (await f.store.ids(feed)).length >= MAX_ITEMS) break
    before = statuses.at(-1)!.id
  }
  await f.store.markReady(feed)
  // Deleted meanwhile (its list.deleted may have dropped the feed before this rebuilt it): drop it again.
  if (!(await findList(f, listId))) await f.store.drop(feed)
}
