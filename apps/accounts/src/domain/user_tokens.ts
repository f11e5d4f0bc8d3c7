import { createHash, randomBytes } from 'node:crypto'
import type { Knex } from '@roost/db'
import { Gone, Invalid } from '@roost/errors'
import type { UserTokenRow } from '../db/rows'

/**
 * The one-time tokens of the links Roost e-mails (docs/security.md, "Links sent by mail"). The link carries 32
 * random bytes; the table keeps their SHA-256 digest only (a token this long needs no slow hash). A token is used
 * once, within its lifetime.
 */

export type UserTokenPurpose = UserTokenRow['purpose']

/** A reset link works for 6 hours (Mastodon's Devise `reset_password_within`). */
export const PASSWORD_RESET_LIFETIME_MS = 6 * 3600 * 1000
/** A confirmation link works for a week (Mastodon sets no limit: docs/mastodon-compatibility.md, "E-mail"). */
export const CONFIRMATION_LIFETIME_MS = 7 * 24 * 3600 * 1000

const LIFETIME: Record<UserTokenPurpose, number> = {
  confirmation: CONFIRMATION_LIFETIME_MS,
  password_reset: PASSWORD_RESET_LIFETIME_MS,
}

/** The sentences a person reads when a link does not work (Devise's). */
const REFUSALS: Record<UserTokenPurpose, { invalid: string; expired: string }> = {
  confirmation: {
    invalid: 'Confirmation token is invalid',
    expired: 'Confirmation token has expired, please request a new one',
  },
  password_reset: {
    invalid: 'Reset password token is invalid',
    expired: 'Reset password token has expired, please request a new one',
  },
}

export const tokenDigest = (raw: string) => createHash('sha256').update(raw, 'utf8').digest('hex')

/**
 * A new token for the user, in the caller's transaction; returns the token itself, which only the mail will hold.
 * A new reset token voids the user's earlier unused ones: only the newest reset link works, as Devise's.
 */
export async function issueUserToken(
  trx: Knex,
  userId: string,
  purpose: UserTokenPurpose,
  options: { email?: string; now?: Date } = {},
): Promise<string> {
  const raw = randomBytes(32).toString('base64url')
  const now = options.now ?? new Date()
  if (purpose === 'password_reset')
    await trx('user_tokens').where({ user_id: userId, purpose }).whereNull('used_at').delete()
  await trx('user_tokens').insert({
    user_id: userId,
    purpose,
    digest: tokenDigest(raw),
    email: options.email ?? null,
    expires_at: new Date(now.getTime() + LIFETIME[purpose]),
  })
  return raw
}

/** The token's row if it could be used now; otherwise the domain error that says why not. */
async function usable(
  db: Knex,
  purpose: UserTokenPurpose,
  raw: unknown,
  lock: boolean,
): Promise<UserTokenRow> {
  const refusal = REFUSALS[purpose]
  if (typeof raw !== 'string' || !/^[\w-]{20,100}$/.test(raw)) throw new Invalid(refusal.invalid)
  const query = db<UserTokenRow>('user_tokens')
    .where({ digest: tokenDigest(raw), purpose })
    .first()
  const row: UserTokenRow | undefined = await (lock ? query.forUpdate() : query)
  if (!row || row.used_at) throw new Invalid(refusal.invalid)
  if (row.expires_at.getTime() <= Date.now()) throw new Gone(refusal.expired)
  return row
}

/** Checks a token without using it (the reset page shows its form only for a link that still works). */
export const checkUserToken = (db: Knex, purpose: UserTokenPurpose, raw: unknown) =>
  usable(db, purpose, raw, false)

/**
 * Uses a token, in the caller's transaction: marked used (the row locked first, so two requests with one link
 * cannot both pass), or Invalid (unknown, malformed, used) or Gone (expired).
 */
export async function redeemUserToken(
  trx: Knex,
  purpose: UserTokenPurpose,
  raw: unknown,
): Promise<UserTokenRow> {
  const row = await usable(trx, purpose, raw, true)
  await trx('user_tokens').where({ id: row.id }).update({ used_at: trx.fn.now() })
  return row
}
