import type { RevocationList } from '@roost/auth'
import type { Knex } from '@roost/db'
import * as outbox from '../outbox/outbox'
import { revokeTokens } from './tokens'
import { redeemUserToken } from './user_tokens'

/**
 * Changing and resetting a password, in the caller's transaction (docs/security.md, "Links sent by mail"). The
 * new password comes hashed (`hashPassword`, domain/password-hashes.ts), hashed before the transaction began.
 */

/**
 * Stores the new password and ends what the old one opened: access tokens are revoked (each with its
 * `token.revoked`, so push drops their subscriptions and streams close), except `keepTokenId`, the one the change
 * was made with; unused authorization codes and reset links stop working; the OAuth pages' sign-in sessions begun
 * before now are over (`password_changed_at`). The user is told by mail.
 */
async function replacePassword(
  trx: Knex,
  revocations: RevocationList,
  userId: string,
  encryptedPassword: string,
  keepTokenId?: string,
) {
  await trx('users')
    .where({ id: userId })
    .update({ encrypted_password: encryptedPassword, password_changed_at: trx.fn.now() })
  await trx('oauth_access_grants')
    .where({ user_id: userId })
    .whereNull('used_at')
    .update({ used_at: trx.fn.now() })
  await trx('user_tokens').where({ user_id: userId, purpose: 'password_reset' }).whereNull('used_at').delete()
  // revokeTokens runs in a savepoint of this transaction: the password, the revocations and their events commit together.
  await revokeTokens({ db: trx, revocations }, (q) => {
    q.where('user_id', userId)
    if (keepTokenId) q.whereNot('id', keepTokenId)
  })
  await outbox.add(trx, { event: 'mail.password_changed', userId })
}

/**
 * Resets a forgotten password with the token of a reset link: the token is used up (Invalid if unknown or used,
 * Gone if expired), and every access token of the user revoked. Returns the user's id.
 */
export async function resetPassword(
  trx: Knex,
  revocations: RevocationList,
  rawToken: unknown,
  encryptedPassword: string,
): Promise<string> {
  const token = await redeemUserToken(trx, 'password_reset', rawToken)
  await replacePassword(trx, revocations, token.user_id, encryptedPassword)
  return token.user_id
}

/** Changes a password its owner knows (the caller checked it): every other access token is revoked. */
export async function changePassword(
  trx: Knex,
  revocations: RevocationList,
  userId: string,
  encryptedPassword: string,
  keepTokenId: string | undefined,
) {
  await replacePassword(trx, revocations, userId, encryptedPassword, keepTokenId)
}

/**
 * A reset link asked for an address: the user it belongs to (unless their account is suspended) is sent one by
 * mail. Says nothing of whether there was one: the page that asks answers the same either way.
 */
export async function askForPasswordReset(trx: Knex, email: string) {
  const user = await trx('users')
    .join('accounts', 'accounts.id', 'users.account_id')
    .whereRaw('lower(users.email) = lower(?)', [email])
    .whereNull('accounts.suspended_at')
    .first('users.id')
  if (user) await outbox.add(trx, { event: 'mail.password_reset', userId: String(user.id) })
}
