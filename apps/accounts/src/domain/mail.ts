import type { Knex } from '@roost/db'
import { roleKeysWith } from './roles'
import type { Mail } from '@roost/events'
import * as outbox from '../outbox/outbox'

/**
 * The mails that changes send (docs/operations.md, "Mail"): each an outbox event of the `mail` queue, written in
 * the transaction of the change, sent by the accounts worker. Which change sends which mail is decided here and
 * in the domain functions that call these.
 */

/**
 * The moderators and admins who are told of sign-ups and reports by mail: those who can sign in and read it
 * (not disabled, address confirmed, account not suspended), by user id; never the account the mail is about.
 */
export function staffToMail(trx: Knex, exceptAccountId?: string): Promise<string[]> {
  const q = trx('users')
    .join('accounts', 'accounts.id', 'users.account_id')
    .whereIn('users.role', roleKeysWith(trx, 'manage_reports'))
    .where({ 'users.disabled': false })
    .whereNotNull('users.confirmed_at')
    .whereNull('accounts.suspended_at')
    .orderBy('users.id')
  if (exceptAccountId) q.whereNot('accounts.id', exceptAccountId)
  return q.pluck('users.id')
}

/** One mail to every moderator and admin (`staffToMail`), made for each from their user id. */
export async function mailStaff(
  trx: Knex,
  make: (recipientUserId: string) => Mail,
  exceptAccountId?: string,
) {
  const recipients = await staffToMail(trx, exceptAccountId)
  await outbox.add(trx, ...recipients.map(make))
}

/**
 * What a user whose account has just become usable, or nearly, is sent: a welcome once their address is confirmed
 * and their sign-up approved; while approval is still to come, the moderators hear of the pending sign-up
 * (Mastodon tells them once the address is confirmed, so that unconfirmed sign-ups bother nobody).
 */
export async function mailOnActivation(
  trx: Knex,
  user: { userId: string; accountId: string; confirmed: boolean; approved: boolean },
) {
  if (!user.confirmed) return
  if (user.approved) await outbox.add(trx, { event: 'mail.welcome', userId: user.userId })
  else
    await mailStaff(
      trx,
      (recipientUserId) => ({
        event: 'mail.admin_pending_account',
        recipientUserId,
        accountId: user.accountId,
      }),
      user.accountId,
    )
}

/**
 * Asks for the confirmation mail again for an address, from the page `/auth/confirmation/new`: only when an
 * unconfirmed, unsuspended user signed up with it; nothing otherwise (the page answers the same either way).
 */
export async function mailConfirmationTo(trx: Knex, email: string) {
  const user = await trx('users')
    .join('accounts', 'accounts.id', 'users.account_id')
    .whereRaw('lower(users.email) = lower(?)', [email])
    .whereNull('users.confirmed_at')
    .whereNull('accounts.suspended_at')
    .first('users.id')
  if (user) await mailConfirmation(trx, String(user.id))
}

/** Asks for a confirmation mail (a sign-up, a resend). */
export const mailConfirmation = (trx: Knex, userId: string) =>
  outbox.add(trx, { event: 'mail.confirmation', userId })
