import type { Knex } from '@roost/db'
import { Invalid } from '@roost/errors'
import type { UserRow } from '../db/rows'
import * as outbox from '../outbox/outbox'
import { newRecoveryCodes, newTotpSecret, normalizeRecoveryCode, totpStep } from '../two_factor/totp'
import { hashPassword, verifyPassword } from '../domain/password-hashes'
import { isSealed, openOtpSecret, sealOtpSecret, type OtpKey } from '../two_factor/otp-secret'

/**
 * Two-factor sign-in, in the caller's transaction (docs/security.md, "Two-factor sign-in"): enrolment with a TOTP
 * secret proved by a first code, ten recovery codes (stored as scrypt hashes, each working once), codes checked at
 * sign-in, and turning it off with a code. Security keys (webauthn.ts) come on top of TOTP, as in Mastodon.
 */

export const WRONG_CODE = 'Invalid two-factor authentication code.'

type TwoFactorUser = Pick<
  UserRow,
  'id' | 'otp_secret' | 'otp_enabled_at' | 'otp_last_step' | 'otp_backup_codes'
>

const lockUser = (trx: Knex, userId: string): Promise<TwoFactorUser | undefined> =>
  trx('users')
    .where({ id: userId })
    .forUpdate()
    .first('id', 'otp_secret', 'otp_enabled_at', 'otp_last_step', 'otp_backup_codes')

/** The stored secret opened, or undefined when there is none or it was sealed under another OTP_SECRET. */
function openSecret(stored: string | null, key: OtpKey): string | undefined {
  if (!stored) return undefined
  try {
    return openOtpSecret(stored, key)
  } catch {
    return undefined
  }
}

export const twoFactorEnabled = (user: Pick<UserRow, 'otp_enabled_at'>) => !!user.otp_enabled_at

/**
 * Begins an enrolment: a new secret, kept until a code proves the authenticator has it. Refused while two-factor
 * sign-in is on (turning it off first needs a code). Returns the secret.
 */
export async function beginEnrolment(trx: Knex, key: OtpKey, userId: string): Promise<string> {
  const user = await lockUser(trx, userId)
  if (!user) throw new Invalid('No such user')
  if (user.otp_enabled_at) throw new Invalid('Two-factor authentication is already enabled.')
  const secret = newTotpSecret()
  await trx('users')
    .where({ id: userId })
    .update({ otp_secret: sealOtpSecret(secret, key), otp_last_step: null })
  return secret
}

async function hashCodes(codes: string[]) {
  return Promise.all(codes.map((c) => hashPassword(c)))
}

/**
 * Ends an enrolment with a code of the pending secret: two-factor sign-in is on, the recovery codes are made
 * (returned, to be shown once) and the user told by mail. Invalid for a wrong code; nothing changes then.
 */
export async function confirmEnrolment(
  trx: Knex,
  key: OtpKey,
  userId: string,
  code: unknown,
): Promise<string[]> {
  const user = await lockUser(trx, userId)
  const secret = openSecret(user?.otp_secret ?? null, key)
  if (!user || !secret || user.otp_enabled_at) throw new Invalid('Begin the set-up again.')
  const step = typeof code === 'string' ? totpStep(secret, code) : undefined
  if (step === undefined) throw new Invalid(WRONG_CODE)
  const codes = newRecoveryCodes()
  await trx('users')
    .where({ id: userId })
    .update({ otp_enabled_at: trx.fn.now(), otp_last_step: step, otp_backup_codes: await hashCodes(codes) })
  await outbox.add(trx, { event: 'mail.two_factor_enabled', userId })
  return codes
}

/**
 * Checks a second factor typed by the user: a 6-digit TOTP code of a step later than the last one accepted, or an
 * unused recovery code, which is used up. Returns how it was proved, or undefined when it is wrong (nothing
 * changes then). The row is locked, so one code cannot pass twice in two requests at once.
 */
export async function checkCode(
  trx: Knex,
  key: OtpKey,
  userId: string,
  code: unknown,
): Promise<'totp' | 'recovery_code' | undefined> {
  const user = await lockUser(trx, userId)
  if (!user?.otp_enabled_at || !user.otp_secret || typeof code !== 'string') return undefined
  // A secret stored before encryption is sealed now (docs/security.md, "Two-factor sign-in").
  const secret = openSecret(user.otp_secret, key)
  if (secret && !isSealed(user.otp_secret))
    await trx('users')
      .where({ id: userId })
      .update({ otp_secret: sealOtpSecret(secret, key) })
  const step = secret ? totpStep(secret, code) : undefined
  if (step !== undefined) {
    if (user.otp_last_step !== null && step <= Number(user.otp_last_step)) return undefined
    await trx('users').where({ id: userId }).update({ otp_last_step: step })
    return 'totp'
  }
  const recovery = normalizeRecoveryCode(code)
  if (!recovery) return undefined
  for (const [i, hash] of user.otp_backup_codes.entries()) {
    if (!(await verifyPassword(recovery, hash))) continue
    const left = user.otp_backup_codes.filter((_, j) => j !== i)
    await trx('users').where({ id: userId }).update({ otp_backup_codes: left })
    return 'recovery_code'
  }
  return undefined
}

/** Turns two-factor sign-in off after a code (`checkCode`): secret, recovery codes and security keys go. */
export async function disableTwoFactor(trx: Knex, key: OtpKey, userId: string, code: unknown) {
  if (!(await checkCode(trx, key, userId, code))) throw new Invalid(WRONG_CODE)
  await turnOffTwoFactor(trx, userId)
}

/**
 * Turns two-factor sign-in off without a code, for an admin helping a user who lost every factor (the CLI's
 * `accounts disable-2fa`, Mastodon's `tootctl accounts modify --disable-2fa`): the user is told by mail.
 * Returns false when it was not on.
 */
export async function adminDisableTwoFactor(trx: Knex, userId: string): Promise<boolean> {
  const user = await lockUser(trx, userId)
  if (!user) throw new Invalid('No such user')
  const keys = await trx('webauthn_credentials').where({ user_id: userId }).count<{ n: string }[]>('* as n')
  if (!user.otp_enabled_at && !user.otp_secret && Number(keys[0]?.n ?? 0) === 0) return false
  await turnOffTwoFactor(trx, userId)
  return true
}

async function turnOffTwoFactor(trx: Knex, userId: string) {
  await trx('users')
    .where({ id: userId })
    .update({ otp_secret: null, otp_enabled_at: null, otp_last_step: null, otp_backup_codes: [] })
  await trx('webauthn_credentials').where({ user_id: userId }).delete()
  await outbox.add(trx, { event: 'mail.two_factor_disabled', userId })
}

/** New recovery codes after a code (`checkCode`): the old ones stop working. Returns the new ones. */
export async function regenerateRecoveryCodes(
  trx: Knex,
  key: OtpKey,
  userId: string,
  code: unknown,
): Promise<string[]> {
  if (!(await checkCode(trx, key, userId, code))) throw new Invalid(WRONG_CODE)
  const codes = newRecoveryCodes()
  await trx('users')
    .where({ id: userId })
    .update({ otp_backup_codes: await hashCodes(codes) })
  return codes
}
