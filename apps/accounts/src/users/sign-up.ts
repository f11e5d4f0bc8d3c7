import type { Knex } from '@roost/db'
import type { Params } from '@roost/service'
import type { AccountsConfig } from '../config'
import { generateRsaKeyPair } from '../federation/transport/keys'
import { createUser, mailOnSignUp } from '../domain/users'
import { useInvite } from '../domain/invites'
import { hashPassword } from '../domain/password-hashes'
import { blank, invalid, text, tooLong, tooShort, Validation } from './validation'
import { emailBlocked } from '../domain/email_blocks'

/** Mastodon's default `reserved_usernames`, plus names that would read as the server itself. */
export const RESERVED_USERNAMES = new Set([
  'admin',
  'administrator',
  'support',
  'help',
  'root',
  'webmaster',
  'mod',
  'moderator',
  'postmaster',
  'abuse',
  'security',
  'roost',
])

export const USERNAME = /^[a-z0-9_]+$/i
export const USERNAME_MAX = 30
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const EMAIL_MAX = 320
const PASSWORD_MIN = 8
const PASSWORD_MAX = 72
const REASON_MAX = 420
const LOCALE = /^[a-z]{2,3}(-[A-Za-z]{2,4})?$/

/** `YYYY-MM-DD` or `DD.MM.YYYY` (both accepted by Mastodon 4.4+), as a UTC date; undefined if neither. */
export function parseDateOfBirth(value: string): Date | undefined {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  const dotted = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(value)
  const [y, m, d] = iso ? [iso[1], iso[2], iso[3]] : dotted ? [dotted[3], dotted[2], dotted[1]] : []
  if (!y) return undefined
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)))
  // Date.UTC rolls 2001-02-30 over to March: such a date does not exist.
  if (date.getUTCMonth() !== Number(m) - 1 || date.getUTCDate() !== Number(d)) return undefined
  return date
}

/** Whole years between `birth` and `today`. */
export function ageOn(birth: Date, today: Date): number {
  let age = today.getUTCFullYear() - birth.getUTCFullYear()
  const beforeBirthday =
    today.getUTCMonth() < birth.getUTCMonth() ||
    (today.getUTCMonth() === birth.getUTCMonth() && today.getUTCDate() < birth.getUTCDate())
  if (beforeBirthday) age -= 1
  return age
}

export interface SignUp {
  username: string
  email: string
  password: string
  locale: string
  reason: string | null
}

/** Checks a sign-up's params the way Mastodon's User and Account models do; throws 422 with `details`. */
export async function validateSignUp(
  db: Knex,
  config: Pick<
    AccountsConfig,
    'REGISTRATIONS_MODE' | 'REGISTRATIONS_REASON_REQUIRED' | 'REGISTRATIONS_MIN_AGE'
  >,
  p: Params,
  options: { allowReserved?: boolean } = {},
): Promise<SignUp> {
  const v = new Validation()
  const username = text(p.username)?.trim() ?? ''
  const email = text(p.email)?.trim() ?? ''
  const password = text(p.password) ?? ''
  const reason = text(p.reason)?.trim() || null

  if (!username) blank(v, 'username')
  else if (username.length > USERNAME_MAX) tooLong(v, 'username', USERNAME_MAX)
  else if (!USERNAME.test(username))
    v.add('username', 'ERR_INVALID', 'must contain only letters, numbers and underscores')
  else if (!options.allowReserved && RESERVED_USERNAMES.has(username.toLowerCase()))
    v.add('username', 'ERR_RESERVED', 'is reserved')
  else if (
    await db('accounts').whereRaw('lower(username) = lower(?)', [username]).whereNull('domain').first()
  )
    v.add('username', 'ERR_TAKEN', 'has already been taken')

  if (!email) blank(v, 'email')
  else if (email.length > EMAIL_MAX) tooLong(v, 'email', EMAIL_MAX)
  else if (!EMAIL.test(email)) invalid(v, 'email')
  else if (await db('users').whereRaw('lower(email) = lower(?)', [email]).first())
    v.add('email', 'ERR_TAKEN', 'has already been taken')
  // E-mail domain and canonical e-mail blocks (docs/moderation.md), as Mastodon's BlacklistedEmailValidator.
  else if (await emailBlocked(db, email)) v.add('email', 'ERR_BLOCKED', 'uses a disallowed e-mail provider')

  if (!password) blank(v, 'password')
  else if (password.length < PASSWORD_MIN) tooShort(v, 'password', PASSWORD_MIN)
  else if (password.length > PASSWORD_MAX) tooLong(v, 'password', PASSWORD_MAX)

  // Only true, "true" or "1" count as accepting the server's rules (Rails' acceptance validator).
  const agreement = p.agreement
  if (!(agreement === true || agreement === 'true' || agreement === '1' || agreement === 1))
    v.add('agreement', 'ERR_ACCEPTED', 'must be accepted')

  if (reason && reason.length > REASON_MAX) tooLong(v, 'reason', REASON_MAX)
  if (!reason && config.REGISTRATIONS_MODE === 'approved' && config.REGISTRATIONS_REASON_REQUIRED)
    blank(v, 'reason')

  if (config.REGISTRATIONS_MIN_AGE > 0) {
    const given = text(p.date_of_birth)?.trim()
    const birth = given ? parseDateOfBirth(given) : undefined
    if (!given) blank(v, 'date_of_birth')
    else if (!birth) invalid(v, 'date_of_birth')
    else if (ageOn(birth, new Date()) < config.REGISTRATIONS_MIN_AGE)
      v.add('date_of_birth', 'ERR_BELOW_LIMIT', 'is below the age limit')
  }

  v.throwIfAny()
  // An unknown locale is not an error in Mastodon: it is dropped (here: the default, English).
  const locale = text(p.locale)
  return { username, email, password, reason, locale: locale && LOCALE.test(locale) ? locale : 'en' }
}

/**
 * Creates the user of a validated sign-up in the state the server's registration mode gives it, in a transaction of
 * its own; an IP rule (`requiresApproval`) makes it wait for a moderator even when registrations are open. A usable
 * invite (`inviteId`, checked by the caller with `usableInvite`) is approval enough, as Mastodon's
 * `valid_invitation?`; its use is counted in the same transaction, and a use-up meanwhile refuses the sign-up (Gone).
 */
export async function registerUser(
  db: Knex,
  config: AccountsConfig,
  signUp: SignUp,
  applicationId: string | null,
  options: { requiresApproval?: boolean; inviteId?: string } = {},
) {
  const encryptedPassword = await hashPassword(signUp.password)
  // Mastodon makes an account's key pair when the account is made.
  const keys = await generateRsaKeyPair()
  const approved = !!options.inviteId || (config.REGISTRATIONS_MODE === 'open' && !options.requiresApproval)
  const confirmed = !config.REQUIRE_EMAIL_CONFIRMATION
  return db.transaction(async (trx) => {
    if (options.inviteId) await useInvite(trx, options.inviteId)
    const ids = await createUser(trx, {
      username: signUp.username,
      email: signUp.email,
      encryptedPassword,
      locale: signUp.locale,
      approved,
      confirmed,
      signUpReason: signUp.reason,
      createdByApplicationId: applicationId,
      keys,
    })
    if (options.inviteId) await trx('users').where({ id: ids.userId }).update({ invite_id: options.inviteId })
    // The confirmation link, or the welcome, or the moderators' notice of a sign-up to approve (domain/mail.ts).
    await mailOnSignUp(trx, { ...ids, confirmed, approved })
    return ids
  })
}
