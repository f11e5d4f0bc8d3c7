import type { Knex } from '@roost/db'
import type { Urls } from '../entities/account'
import type { AccountRow, ListRow } from '../db/rows'
import * as outbox from '../outbox/outbox'
import { notify } from './notifications'
import { follow, unfollow } from './relationships'

/**
 * Moved accounts (docs/federation.md, "Moved accounts"), as Mastodon's MoveWorker: the followers here of an
 * account that moved follow its new account instead (asked, when it is remote or locked), with the lists that held
 * the old account now holding the new one and their notes on the old account carried over; each is told with a
 * `move` notification. The follow ceiling does not apply (Mastodon's `bypass_limit`); a follower the new account
 * blocks, or that blocks it, only stops following the old one.
 */

/** Mastodon's `move_handler.copy_account_note_text`, put before a note carried over to the new account. */
const noteHeader = (acct: string) => `This user moved from ${acct}, here were your previous notes about them:`

/** The local followers of `origin` (and those asking to follow it): the accounts a move concerns. */
export async function localFollowersOf(db: Knex, originId: string): Promise<string[]> {
  return db('follows')
    .join('accounts', 'accounts.id', 'follows.account_id')
    .whereNull('accounts.domain')
    .where('follows.target_account_id', originId)
    .pluck('follows.account_id')
}

/** Moves one local follower from `origin` to `target` (one transaction per follower, the caller's). */
export async function moveFollower(
  trx: Knex,
  urls: Urls,
  followerId: string,
  origin: AccountRow,
  target: AccountRow,
) {
  const follower: AccountRow | undefined = await trx('accounts').where({ id: followerId }).first()
  if (!follower || follower.id === target.id) return
  const lists: ListRow[] = await trx('lists')
    .join('list_accounts', 'list_accounts.list_id', 'lists.id')
    .where({ 'lists.account_id': follower.id, 'list_accounts.account_id': origin.id })
    .select('lists.*')
  const old = await trx('follows')
    .where({ account_id: follower.id, target_account_id: origin.id })
    .first('show_reblogs', 'notify', 'languages')
  await unfollow(trx, follower.id, origin.id)
  try {
    await follow(
      trx,
      follower,
      target,
      { reblogs: old?.show_reblogs ?? true, notify: old?.notify ?? false, languages: old?.languages ?? null },
      { threshold: Number.MAX_SAFE_INTEGER, ratio: 0 },
    )
  } catch {
    // Blocked either way, or the target is suspended: the follower only stops following the old account.
    return
  }
  const key = { account_id: follower.id, target_account_id: target.id }
  const followRow = await trx('follows').where(key).first('id')
  const request = followRow ? undefined : await trx('follow_requests').where(key).first('id')
  for (const list of lists) {
    const [row] = await trx('list_accounts')
      .insert({
        list_id: list.id,
        account_id: target.id,
        follow_id: followRow?.id ?? null,
        follow_request_id: request?.id ?? null,
      })
      .onConflict(['list_id', 'account_id'])
      .ignore()
      .returning('id')
    if (row)
      await outbox.add(trx, {
        event: 'list_account.created',
        listAccountId: row.id,
        listId: list.id,
        accountId: follower.id,
        targetAccountId: target.id,
      })
  }
  const note = await trx('account_notes')
    .where({ account_id: follower.id, target_account_id: origin.id })
    .first('comment')
  if (note) {
    const acct = origin.domain ? `${origin.username}@${origin.domain}` : origin.username
    const existing = await trx('account_notes').where(key).first('comment')
    const comment = [noteHeader(acct), note.comment, ...(existing ? ['', existing.comment] : [])].join('\n')
    await trx('account_notes')
      .insert({ ...key, comment })
      .onConflict(['account_id', 'target_account_id'])
      .merge({ comment, updated_at: trx.fn.now() })
  }
  await notify(trx, urls, {
    type: 'move',
    recipientId: follower.id,
    senderId: origin.id,
    activityId: target.id,
  })
}

/** Marks `origin` as moved to `target` and moves its local followers, one transaction each. */
export async function moveAccount(db: Knex, urls: Urls, origin: AccountRow, target: AccountRow) {
  await db('accounts').where({ id: origin.id }).update({ moved_to_account_id: target.id })
  for (const followerId of await localFollowersOf(db, origin.id))
    await db.transaction((trx) => moveFollower(trx, urls, followerId, origin, target))
}

/**
 * Replaces the ActivityPub ids `accountId` says it is also known as (served as its actor's `alsoKnownAs`; an Update
 * tells its followers' servers). Used by `POST`/`DELETE /api/v1/accounts/aliases` and `roost accounts alias`.
 */
export async function saveAliases(trx: Knex, accountId: string, aliases: string[]): Promise<AccountRow> {
  const [row]: AccountRow[] = await trx('accounts')
    .where({ id: accountId })
    .update({ also_known_as: JSON.stringify([...new Set(aliases)]) })
    .returning('*')
  await outbox.add(trx, { event: 'account.updated', accountId })
  return row!
}
