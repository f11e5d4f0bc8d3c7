import type { Knex } from '@roost/db'
import type { Urls } from '../entities/account'
import type { PollRow } from '../db/rows'
import { notifyAll } from '../domain/notifications'
import * as outbox from '../outbox/outbox'
import type { MadeNotification, StreamingPublisher } from '../streaming/publisher'

/**
 * A poll's end (Mastodon's PollExpirationNotifyWorker): `poll` notifications to its author and to everyone who
 * voted, from the author, in one transaction with the mark that says it is done and the `poll.ended` activity (a
 * local poll's final counts go to other servers). The poll row is locked, so two
 * runs of the timer (a replay, the sweep) cannot both notify, and notifications are unique per recipient and poll.
 * Returns the moment to try again when the poll has not ended yet (the timer ran early, or an edit restarted the
 * poll after the timer was set: the edit set a timer of its own, so waiting again merely duplicates it).
 */
export async function endPoll(
  db: Knex,
  urls: Urls,
  pollId: string,
  streaming?: Pick<StreamingPublisher, 'notifications'>,
): Promise<Date | undefined> {
  const made: MadeNotification[] = []
  const later = await db.transaction(async (trx) => {
    const poll: PollRow | undefined = await trx('polls').where({ id: pollId }).forUpdate().first()
    if (!poll || poll.expiry_notified_at || !poll.expires_at) return undefined
    if (new Date(poll.expires_at).getTime() > Date.now()) return new Date(poll.expires_at)
    const voters: string[] = await trx('poll_votes')
      .where({ poll_id: poll.id })
      .whereNot({ account_id: poll.account_id })
      .distinct()
      .orderBy('account_id')
      .pluck('account_id')
    const ids = await notifyAll(
      trx,
      urls,
      { type: 'poll', senderId: poll.account_id, statusId: poll.status_id, activityId: poll.id },
      [poll.account_id, ...voters],
    )
    for (const [accountId, id] of ids) made.push({ id, accountId })
    await trx('polls').where({ id: poll.id }).update({ expiry_notified_at: trx.fn.now() })
    await outbox.add(trx, { event: 'poll.ended', pollId: poll.id, accountId: poll.account_id })
    return undefined
  })
  await streaming?.notifications(made) // once committed
  return later
}

/** Polls that ended at least `graceMs` ago and were never notified: their timer was lost (the worker's sweep). */
export const overduePolls = (db: Knex, graceMs: number): Promise<{ id: string; expires_at: Date }[]> =>
  db('polls')
    .whereNull('expiry_notified_at')
    .where('expires_at', '<=', new Date(Date.now() - graceMs))
    .orderBy('expires_at')
    .limit(1000)
    .select('id', 'expires_at')
