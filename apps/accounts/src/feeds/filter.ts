import type { Knex } from '@roost/db'
import type { StatusRow } from '../entities/status'
import { activeMute } from '../domain/relationships'

/**
 * The insert-time rules of a home feed (Mastodon's FeedManager#filter_from_home; docs/feeds.md): one pure
 * function, fed with the facts of a batch of statuses and of a batch of receivers, so fan-out (one status, a
 * page of followers), merges and regeneration (one receiver, many statuses) share it.
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
  const facts: ReceiverFacts = { silenced: new Map(), blockedBy: new Map(), follows: new Map() }
  if (!receiverIds.length || !accountIds.length) return facts
  const [silencing, blocking, following] = await Promise.all([
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
  ])
  const add = (map: Map<string, Set<string>>, key: string, value: string) =>
    map.set(key, (map.get(key) ?? new Set()).add(value))
  for (const r of silencing) add(facts.silenced, r.account_id, r.target_account_id)
  for (const r of blocking) add(facts.blockedBy, r.target_account_id, r.account_id)
  for (const r of following) {
    if (!facts.follows.has(r.account_id)) facts.follows.set(r.account_id, new Map())
    facts.follows.get(r.account_id)!.set(r.target_account_id, r)
  }
  return facts
}

/** Mastodon's filter_from_home: may `receiverId`'s home feed take this status? */
export function admitsToHome(f: StatusFacts, receiverId: string, r: ReceiverFacts): boolean {
  const s = f.status
  if (s.account_id === receiverId) return true
  // A reply whose parent is gone (the id is cleared when the parent is deleted).
  if (s.in_reply_to_account_id && !s.in_reply_to_id) return false
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
  if (replyTo && replyTo !== s.account_id && replyTo !== receiverId && !follows?.has(replyTo)) return false
  if (f.original) {
    if (follow && !follow.show_reblogs) return false
    if (blockedBy?.has(f.original.status.account_id)) return false
  }
  return true
}
