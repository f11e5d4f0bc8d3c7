import type { Knex } from '@roost/db'
import * as outbox from '../outbox/outbox'

/**
 * A moderation decision told to the account (Mastodon's AccountWarning): kept in `account_warnings` and mailed to
 * the user by the worker (`mail.warning`, Mastodon's UserMailer#warning), in the caller's transaction so the mail
 * leaves only if the action is committed (docs/security.md, "Mail on moderation decisions").
 */
export async function recordWarning(
  trx: Knex,
  w: { moderatorAccountId: string; targetAccountId: string; action: string; text: string },
): Promise<string> {
  const [row] = await trx('account_warnings')
    .insert({
      account_id: w.moderatorAccountId,
      target_account_id: w.targetAccountId,
      action: w.action,
      text: w.text,
    })
    .returning('id')
  const id = String(row.id)
  await outbox.add(trx, { event: 'mail.warning', warningId: id })
  return id
}
