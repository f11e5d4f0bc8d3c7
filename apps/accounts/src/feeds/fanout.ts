import { createReads } from '../domain/reads'
import type { Reads } from '../domain/reads'
import type { StatusRow } from '../db/rows'
import type { Feeds } from './context'
import { activeSince, place } from './context'
import { admitsToHome, involvedAccounts, receiverFacts, statusFacts } from './filter'
import { forEachFollowerPage } from './home'
import { fanOutToLists, removeFromLists } from './lists'
import { fanOutToTagFollowers } from './tags'
import type { FeedItem } from './store'
import { home } from './store'

/**
 * Fan-out on write (Mastodon's FanOutOnWriteService; docs/feeds.md): who gets a new status, and who loses a
 * deleted one. Followers and lists are read a page at a time and each page is written in one Redis pipeline.
 */

/**
 * A new status or reblog (`undefined`: gone since) reaches its author's feed, the feeds of local followers active
 * lately that the rules admit (a direct message only the mentioned ones among them), the lists its author is in,
 * and (public statuses) the followers of its hashtags. `edit`: the status was edited, and the fan-out runs again (`place`): feeds that
 * hold it hear `status.update`, feeds the edited status now qualifies for take it. `reads`: the author, the
 * mentions and the hashtags as the rest of the activity's work reads them (domain/reads.ts).
 */
export async function fanOut(
  f: Feeds,
  status: StatusRow | undefined,
  edit = false,
  reads: Reads = createReads(f.db),
) {
  if (!status) return
  const author = await reads.account(status.account_id)
  if (!author || author.suspended_at) return
  // A reblog's facts include its original's; a status's own are its mentions, which the activity reads once.
  const [facts] = status.reblog_of_id
    ? await statusFacts(f.db, [status])
    : [{ status, mentionIds: [...(await reads.mentions(status.id))] }]
  const own = [home(status.account_id)]
  await place(f, status, own, edit ? { candidates: own } : undefined)
  const involved = involvedAccounts([facts!])
  const deliver = async (receiverIds: string[]) => {
    const receivers = await receiverFacts(f.db, receiverIds, involved)
    const admitted = receiverIds.filter((id) => admitsToHome(facts!, id, receivers))
    await place(f, status, admitted.map(home), edit ? { candidates: receiverIds.map(home) } : undefined)
  }
  if (status.visibility === 'direct') {
    if (!facts!.mentionIds.length) return
    const mentioned: string[] = await f
      .db('follows')
      .join('users', 'users.account_id', 'follows.account_id')
      .where('follows.target_account_id', status.account_id)
      .whereIn('follows.account_id', facts!.mentionIds)
      .where('users.current_sign_in_at', '>', activeSince(f))
      .pluck('follows.account_id')
    await deliver(mentioned)
    return
  }
  await forEachFollowerPage(f, status.account_id, deliver)
  await fanOutToLists(f, facts!, edit)
  await fanOutToTagFollowers(f, facts!, edit, reads)
}

/** A deleted status (or reblog) leaves its author's feed, every local follower's and the lists of its author. */
export async function removeEverywhere(f: Feeds, authorId: string, item: FeedItem) {
  const own = await f.store.removeEverywhere([home(authorId)], item)
  if (own.length) await f.listener?.removed(own, item.id)
  await forEachFollowerPage(
    f,
    authorId,
    async (ids) => {
      const removed = await f.store.removeEverywhere(ids.map(home), item)
      if (removed.length) await f.listener?.removed(removed, item.id)
    },
    true,
  )
  await removeFromLists(f, authorId, item)
}

/**
 * An edited status: the fan-out runs again (`fanOut` with `edit`). Every feed that holds it (its author's, local
 * followers' and lists', tag followers') hears `status.update`; the feeds themselves keep it. Feeds it did not
 * reach but now would (a followed hashtag added, a muted account's mention dropped) take it.
 */
export const updated = (f: Feeds, status: StatusRow | undefined, reads?: Reads) =>
  fanOut(f, status, true, reads)
