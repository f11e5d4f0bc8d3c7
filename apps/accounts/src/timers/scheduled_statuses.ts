import type { Knex } from '@roost/db'
import type { Logger } from '@roost/service'
import { DomainError, Unavailable } from '@roost/errors'
import type { AccountRow, RowOf, ScheduledStatusRow } from '../db/rows'
import { statusFromParams } from '../domain/scheduled_statuses'
import { createStatus } from '../domain/statuses'

/**
 * A scheduled status's publication (Mastodon's PublishScheduledStatusWorker), exactly once: in one transaction
 * the scheduled row is locked and deleted and the status created (with its `status.created` in the outbox), so a
 * run that dies before committing leaves the row for the next, and a run after the commit finds no row. Returns
 * the moment to try again when it is not due yet (the timer ran early, or the status was rescheduled later).
 *
 * As in Mastodon, the status is dropped, not posted, when its author is suspended or disabled by then, or when it
 * is no longer valid (the status it replies to is gone, say); its uploads are released.
 */
export async function publishScheduledStatus(
  db: Knex,
  logger: Logger,
  scheduledStatusId: string,
  minPollExpiration: number,
): Promise<Date | undefined> {
  return db.transaction(async (trx) => {
    const row: ScheduledStatusRow | undefined = await trx('scheduled_statuses')
      .where({ id: scheduledStatusId })
      .forUpdate()
      .first()
    if (!row) return undefined
    if (new Date(row.scheduled_at).getTime() > Date.now()) return new Date(row.scheduled_at)
    // Deleting it releases its uploads (scheduled_status_id is set to null), which the status then takes.
    await trx('scheduled_statuses').where({ id: row.id }).delete()
    const author: AccountRow | undefined = await trx('accounts').where({ id: row.account_id }).first()
    const user = await trx<RowOf<'users'>>('users')
      .where({ account_id: row.account_id })
      .first('disabled', 'default_privacy', 'default_sensitive', 'default_language', 'default_quote_policy')
    if (!author || !user || author.suspended_at || user.disabled) return undefined
    const status = statusFromParams(
      row.params,
      {
        visibility: user.default_privacy,
        sensitive: user.default_sensitive,
        language: user.default_language,
        quotePolicy: user.default_quote_policy,
      },
      minPollExpiration,
    )
    try {
      // A savepoint: a status that fails validation leaves nothing behind but the deletion.
      await trx.transaction((inner) => createStatus(inner, author, status))
    } catch (err) {
      // Refused (invalid, its reply target gone, …): dropped. A temporary failure is tried again.
      if (!(err instanceof DomainError) || err instanceof Unavailable) throw err
      logger.warn(
        { scheduledStatusId: row.id, accountId: row.account_id, reason: err.message },
        'scheduled status no longer valid; dropped',
      )
    }
    return undefined
  })
}

/** Scheduled statuses due at least `graceMs` ago: their timer was lost (the worker's sweep). */
export const overdueScheduledStatuses = (
  db: Knex,
  graceMs: number,
): Promise<{ id: string; scheduled_at: Date }[]> =>
  db('scheduled_statuses')
    .where('scheduled_at', '<=', new Date(Date.now() - graceMs))
    .orderBy('scheduled_at')
    .limit(1000)
    .select('id', 'scheduled_at')
