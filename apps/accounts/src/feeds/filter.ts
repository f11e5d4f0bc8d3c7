import type { Knex } from '@roost/db'
import type { StatusRow } from '../db/rows'
import { activeMute } from '../queries/relationships'

/**
 * The insert-time rules of home and list feeds (Mastodon's FeedManager#filter_from_home and filter_from_list?;
 * docs/feeds.md): pure functions, fed with the facts of a batch of statuses and of a batch of receivers, so
 * fan-out (one status, a page of followers or lists), merges and regeneration (one receiver, many statuses)
 * share them.
 */

/** A status with what the rules read about it. */
export interface StatusFacts {
  status: StatusRow
  mentionIds: string[]
  /** The reblogged status, for a reblog (undefined when it is gone). */
  original?: { status: StatusRow; mentionIds: string[] }
}

interface FollowFacts {
  show_reblogs: boolean
  languages: string[] | null
}

/** What a batch of receivers has to do with the accounts a batch of statuses involves. */
export interface ReceiverFacts {
  /** receiver → accounts it blocks or mutes (active mutes). */
  silenced: Map<string, Set<string>>
  /** receiver → accounts that block it. */
  blockedBy: Map<string, Set<string>>
  /** receiver → followed account → the follow's options. */
  follows: Map<string, Map<string, FollowFacts>>
  /** receiver → accounts in one of its exclusive lists (their posts stay out of its home feed). */
  exclusive: Map<string, Set<string>>
}

export type RepliesPolicy = 'list' | 'followed' | 'none'

/** A list as its rules see it, with its members among the accounts a batch of statuses involves. */
export interface ListFacts {
  id: string
  /** The owner. */
  account_id: string
  replies_policy: RepliesPolicy
  members: Set<string>
}

/** The statuses with their mentions and reblogged originals, in the order given. */
export async function statusFacts(db: Knex, statuses: StatusRow[]): Promise<StatusFacts[]> {
  const originalIds = statuses.map((s) => s.reblog_of_id).filter((id): id is string => !!id)
  const originals: StatusRow[] = originalIds.length ? await db('statuses').whereIn('id', originalIds) : []
  const ids = [...statuses, ...originals].map((s) => s.id)
  const mentions: { status_id: string; account_id: string }[] = ids.length
    ? await db('mentions').whereIn('status_id', ids).select('status_id', 'account_id')
    : []
  const mentionIds = (id: string) => mentions.filter((m) => m.status_id === id).map((m) => m.account_id)
  return statuses.map((status) => {
    const original = status.reblog_of_id ? originals.find((o) => o.id === status.reblog_of_id) : undefined
    return {
      status,
      mentionIds: mentionIds(status.id),
      original: original && { status: original, mentionIds: mentionIds(original.id) },
    }
  })
}

/** Every account the rules may ask a receiver about, for these statuses. */
export function involvedAccounts(facts: StatusFacts[]): string[] {
  const ids = new Set<string>()
  for (const f of facts) {
    ids.add(f.status.account_id)
    f.mentionIds.forEach((id) => ids.add(id))
    if (f.status.in_reply_to_account_id) ids.add(f.status.in_reply_to_account_id)
    if (f.original) {
      ids.add(f.original.status.account_id)
      f.original.mentionIds.forEach((id) => ids.add(id))
    }
  }
  return [...ids]
}

/** The receivers' blocks, mutes and follows that concern `accountIds`: three queries for any batch. */
export async function receiverFacts(
  db: Knex,
  receiverIds: string[],
  accountIds: string[],
): Promise<ReceiverFacts> {
  const facts: ReceiverFacts = {
    silenced: new Map(),
    blockedBy: new Map(),
    follows: new Map(),
    exclusive: new Map(),
  }
  if (!receiverIds.length || !accountIds.length) return facts
  const [silencing, blocking, following, exclusive] = await Promise.all([
    db
      .select('account_id', 'target_account_id')
      .from('blocks')
      .whereIn('account_id', receiverIds)
      .whereIn('target_account_id', accountIds)
      .unionAll((q) =>
        q
          .select('account_id', 'target_account_id')
          .from('mutes')
          .whereIn('account_id', receiverIds)
          .whereIn('target_account_id', accountIds)
          .where(activeMute(db)),
      ) as Promise<{ account_id: string; target_account_id: string }[]>,
    db('blocks')
      .whereIn('account_id', accountIds)
      .whereIn('target_account_id', receiverIds)
      .select('account_id', 'target_account_id') as Promise<
      { account_id: string; target_account_id: string }[]
    >,
    db('follows')
      .whereIn('account_id', receiverIds)
      .whereIn('target_account_id', accountIds)
      .select('account_id', 'target_account_id', 'show_reblogs', 'languages') as Promise<
      ({ account_id: string; target_account_id: string } & FollowFacts)[]
    >,
    db('list_accounts')
      .join('lists', 'lists.id', 'list_accounts.list_id')
      .where('lists.exclusive', true)
      .whereIn('lists.account_id', receiverIds)
      .whereIn('list_accounts.account_id', accountIds)
      .distinct('lists.account_id as account_id', 'list_accounts.account_id as target_account_id') as Promise<
      { account_id: string; target_account_id: string }[]
    >,
  ])
  const add = (map: Map<string, Set<string>>, key: string, value: string) =>
    map.set(key, (map.get(key) ?? new Set()).add(value))
  for (const r of silencing) add(facts.silenced, r.account_id, r.target_account_id)
  for (const r of blocking) add(facts.blockedBy, r.target_account_id, r.account_id)
  for (const r of exclusive) add(facts.exclusive, r.account_id, r.target_account_id)
  for (const r of following) {
    if (!facts.follows.has(r.account_id)) facts.follows.set(r.account_id, new Map())
    facts.follows.get(r.account_id)!.set(r.target_account_id, r)
  }
  return facts
}

/**
 * The members of `lists` among `accountIds` (the accounts replied to, for the `list` replies policy): one query
 * for any batch.
 */
export async function listMembers(
  db: Knex,
  lists: { id: string; account_id: string; replies_policy: RepliesPolicy }[],
  accountIds: string[],
): Promise<ListFacts[]> {
  const rows: { list_id: string; account_id: string }[] =
    lists.length && accountIds.length
      ? await db('list_accounts')
          .whereIn(
            'list_id',
            lists.map((l) => l.id),
          )
          .whereIn('account_id', accountIds)
          .select('list_id', 'account_id')
      : []
  return lists.map((l) => ({
    id: l.id,
    account_id: l.account_id,
    replies_policy: l.replies_policy,
    members: new Set(rows.filter((r) => r.list_id === l.id).map((r) => r.account_id)),
  }))
}

/**
 * Mastodon's filter_from_home, for a home feed (`inList` undefined) or for a list's feed (the receiver is then
 * the list's owner): may `receiverId`'s feed take this status? In a list, replies to others follow the list's
 * replies policy instead of the owner's follows, and exclusive lists do not apply.
 */
function admits(f: StatusFacts, receiverId: string, r: ReceiverFacts, inList?: ListFacts): boolean {
  const s = f.status
  if (s.account_id === receiverId) return true
  // A reply whose parent is gone (the id is cleared when the parent is deleted).
  if (s.in_reply_to_account_id && !s.in_reply_to_id) return false
  if (!inList && r.exclusive.get(receiverId)?.has(s.account_id)) return false
  const follows = r.follows.get(receiverId)
  const follow = follows?.get(s.account_id)
  if (follow?.languages?.length && s.language && !follow.languages.includes(s.language)) return false
  if (s.reblog_of_id && !f.original) return false
  const silenced = r.silenced.get(receiverId)
  const involved = [s.account_id, ...f.mentionIds]
  if (f.original) involved.push(f.original.status.account_id, ...f.original.mentionIds)
  if (involved.some((id) => silenced?.has(id))) return false
  const blockedBy = r.blockedBy.get(receiverId)
  if (blockedBy?.has(s.account_id)) return false
  const replyTo = s.in_reply_to_account_id
  const repliesPass = (id: string) =>
    !inList || inList.replies_policy === 'followed'
      ? !!follows?.has(id)
      : inList.replies_policy === 'list' && inList.members.has(id)
  if (replyTo && replyTo !== s.account_id && replyTo !== receiverId && !repliesPass(replyTo)) return false
  if (f.original) {
    if (follow && !follow.show_reblogs) return false
    if (blockedBy?.has(f.original.status.account_id)) return false
  }
  return true
}

/** May `receiverId`'s home feed take this status? */
export const admitsToHome = (f: StatusFacts, receiverId: string, r: ReceiverFacts) => admits(f, receiverId, r)

/**
 * May this list's feed take this status (Mastodon's filter_from_list?, then filter_from_home for the owner)? A
 * reply to someone other than its author or the owner enters only as the replies policy says: `followed`, a
 * reply to an account the owner follows; `list`, to a member; `none`, never. `r` holds the owners' facts.
 */
export function admitsToList(f: StatusFacts, list: ListFacts, r: ReceiverFacts): boolean {
  const s = f.status
  const replyTo = s.in_reply_to_account_id
  if (replyTo && replyTo !== s.account_id && replyTo !== list.account_id) {
    if (list.replies_policy === 'none') return false
    if (list.replies_policy === 'list' && !list.members.has(replyTo)) return false
  }
  return admits(f, list.account_id, r, list)
}

/**
 * Mastodon's filter_from_tags?: may a status reach `receiverId`'s home feed because it follows one of its tags?
 * Not the author's own (it has it already), nor when the receiver blocks or mutes the author or a mentioned
 * account, nor when the author blocks the receiver. No reply, language or list rules.
 */
export function admitsFromTags(f: StatusFacts, receiverId: string, r: ReceiverFacts): boolean {
  const s = f.status
  if (s.account_id === receiverId) return false
  const silenced = r.silenced.get(receiverId)
  if ([s.account_id, ...f.mentionIds].some((id) => silenced?.has(id))) return false
  return !r.blockedBy.get(receiverId)?.has(s.account_id)
}
