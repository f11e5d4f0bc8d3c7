import type { Reads } from '../domain/reads'
import type { Feeds } from './context'
import { activeSince, FANOUT_PAGE, forEachPage, place } from './context'
import type { StatusFacts } from './filter'
import { admitsFromTags, involvedAccounts, receiverFacts } from './filter'
import { removeMatching } from './ops'
import { home } from './store'

/**
 * Followed hashtags (docs/hashtags.md; Mastodon's deliver_to_hashtag_followers and TagUnmergeWorker): a public
 * status reaches the home feeds of the active local accounts that follow one of its tags.
 */

/**
 * A public status (not a reblog, its author not silenced) goes into the home feed of every active local follower
 * of its tags that the rules admit, followers read a page at a time; the hashtag streams are told of a new one
 * (an edit reaches them through the streaming consumer). `edit`: the fan-out of an edited status (`place`), so
 * a hashtag the edit added reaches that tag's followers.
 */
export async function fanOutToTagFollowers(f: Feeds, facts: StatusFacts, edit: boolean, reads: Reads) {
  const status = facts.status
  if (status.visibility !== 'public' || status.reblog_of_id) return
  const author = await reads.account(status.account_id)
  if (!author || author.silenced_at) return
  const tags = await reads.tags(status.id)
  if (!tags.length) return
  if (!edit)
    await f.listener?.tagged?.(
      status,
      tags.map((t) => t.name),
    )
  const involved = involvedAccounts([facts])
  await forEachPage(
    (after) =>
      f
        .db('tag_follows')
        .join('users', 'users.account_id', 'tag_follows.account_id')
        .whereIn(
          'tag_follows.tag_id',
          tags.map((t) => t.id),
        )
        .where('tag_follows.id', '>', after)
        .where('users.current_sign_in_at', '>', activeSince(f))
        .orderBy('tag_follows.id')
        .limit(FANOUT_PAGE)
        .select('tag_follows.id as key', 'tag_follows.account_id') as Promise<
        { key: string; account_id: string }[]
      >,
    async (rows) => {
      const ids = [...new Set(rows.map((r) => r.account_id))]
      const receivers = await receiverFacts(f.db, ids, involved)
      const admitted = ids.filter((id) => admitsFromTags(facts, id, receivers))
      await place(f, status, admitted.map(home), edit ? { candidates: ids.map(home) } : undefined)
    },
  )
}

/**
 * An unfollowed tag's statuses leave the home feed, except the account's own, those of accounts it follows and
 * those with another tag it follows (Mastodon's unmerge_tag_from_home). Nothing if it follows the tag again.
 */
export async function unmergeTag(f: Feeds, accountId: string, tagId: string) {
  const db = f.db
  if (await db('tag_follows').where({ account_id: accountId, tag_id: tagId }).first('id')) return
  const followedTags = db('tag_follows').where({ account_id: accountId }).select('tag_id')
  await removeMatching(f, home(accountId), (q) =>
    q
      .whereExists(
        db('status_tags').whereRaw('status_tags.status_id = statuses.id').where('status_tags.tag_id', tagId),
      )
      .whereNot('statuses.account_id', accountId)
      .whereNotIn(
        'statuses.account_id',
        db('follows').where({ account_id: accountId }).select('target_account_id'),
      )
      .whereNotExists(
        db('status_tags')
          .whereRaw('status_tags.status_id = statuses.id')
          .whereIn('status_tags.tag_id', followedTags),
      ),
  )
}
