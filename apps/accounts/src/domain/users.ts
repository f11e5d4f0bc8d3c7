import type { Knex } from '@roost/db'
import { Invalid } from '@roost/errors'
import type { KeyPair } from '../federation/transport/keys'
import * as outbox from '../outbox/outbox'
import { adminEvent } from './webhooks'
import { mailConfirmation, mailOnActivation } from './mail'
import { redeemUserToken } from './user_tokens'

export interface NewUser {
  username: string
  email: string
  /**
   * The password as stored (`hashPassword`, domain/password-hashes.ts), hashed by the caller before its transaction, which
   * the ~60 ms of scrypt would otherwise hold open.
   */
  encryptedPassword: string
  locale?: string
  role?: string
  approved?: boolean
  /** False leaves the e-mail address unconfirmed (sign-ups when REQUIRE_EMAIL_CONFIRMATION is on). */
  confirmed?: boolean
  signUpReason?: string | null
  createdByApplicationId?: string | null
  /** The account's key pair for HTTP signatures; without one it is made on first need (federation/transport/keys.ts). */
  keys?: KeyPair
}

/**
 * Creates an account and its user, in the caller's transaction; returns both ids. Validation is the caller's job. An
 * approved user's home feed starts empty and ready (`home_feed.created`, docs/feeds.md), so that what the accounts
 * they follow post reaches it from the first minute. Whether the user may log in is for the caller to publish once
 * the transaction has committed (`publishLoginState`, users/login-state.ts).
 */
export async function createUser(trx: Knex, user: NewUser): Promise<{ userId: string; accountId: string }> {
  const [account] = await trx('accounts')
    .insert({
      username: user.username,
      ...(user.keys ? { public_key: user.keys.publicKey, private_key: user.keys.privateKey } : {}),
    })
    .returning('id')
  const [row] = await trx('users')
    .insert({
      account_id: account.id,
      email: user.email,
      encrypted_password: user.encryptedPassword,
      locale: user.locale ?? 'en',
      role: user.role ?? 'user',
      approved: user.approved ?? true,
      confirmed_at: user.confirmed === false ? null : trx.fn.now(),
      sign_up_reason: user.signUpReason ?? null,
      created_by_application_id: user.createdByApplicationId ?? null,
    })
    .returning('id')
  if (user.approved ?? true) await outbox.add(trx, { event: 'home_feed.created', accountId: account.id })
  await adminEvent(trx, 'account.created', String(account.id))
  return { userId: row.id as string, accountId: account.id as string }
}

/**
 * Marks the user's address confirmed, in the caller's transaction, and sends what follows (`mailOnActivation`: the
 * welcome, or the moderators' notice of a pending sign-up). False if it was confirmed already. Whether the user
 * may now log in is for the caller to publish once the transaction has committed (`publishLoginState`).
 */
export async function markConfirmed(trx: Knex, userId: string): Promise<boolean> {
  const [user] = await trx('users')
    .where({ id: userId })
    .whereNull('confirmed_at')
    .update({ confirmed_at: trx.fn.now() })
    .returning(['id', 'account_id', 'approved'])
  if (!user) return false
  await mailOnActivation(trx, {
    userId,
    accountId: user.account_id,
    confirmed: true,
    approved: user.approved,
  })
  return true
}

/**
 * Confirms an address with the token of its confirmation link, in the caller's transaction: the token is used up;
 * one made for an address the user has changed since confirms nothing (Invalid). Returns the user's ids.
 */
export async function confirmEmail(
  trx: Knex,
  rawToken: unknown,
): Promise<{ userId: string; accountId: string }> {
  const token = await redeemUserToken(trx, 'confirmation', rawToken)
  const user = await trx('users')
    .where({ id: token.user_id })
    .forUpdate()
    .first('id', 'account_id', 'email', 'unconfirmed_email')
  const same = (a: unknown) =>
    !!token.email && typeof a === 'string' && token.email.toLowerCase() === a.toLowerCase()
  if (user && same(user.unconfirmed_email)) {
    // A change of address asked for in settings (settings/email.ts): made now, unless taken meanwhile.
    const taken = await trx('users')
      .whereRaw('lower(email) = lower(?)', [token.email])
      .whereNot('id', user.id)
      .first('id')
    if (taken) throw new Invalid('Confirmation token is invalid')
    await trx('users').where({ id: user.id }).update({ email: token.email, unconfirmed_email: null })
    await markConfirmed(trx, user.id)
    return { userId: String(user.id), accountId: String(user.account_id) }
  }
  if (!user || (token.email && !same(user.email))) throw new Invalid('Confirmation token is invalid')
  await markConfirmed(trx, user.id)
  return { userId: String(user.id), accountId: String(user.account_id) }
}

/**
 * What a new sign-up is sent, in the transaction that created it: the confirmation link when its address is still
 * to be confirmed, else what an activated user is sent (`mailOnActivation`).
 */
export async function mailOnSignUp(
  trx: Knex,
  user: { userId: string; accountId: string; confirmed: boolean; approved: boolean },
) {
  if (!user.confirmed) await mailConfirmation(trx, user.userId)
  else await mailOnActivation(trx, user)
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const EMAIL_MAX = 320

/**
 * Sends the confirmation link again (POST /api/v1/emails/confirmations), to a new address if one is given (Mastodon
 * lets a sign-up correct a mistyped address this way): the address is checked as at sign-up (Invalid). Links sent
 * to the old address stop working, as they name it.
 */
export async function resendConfirmation(trx: Knex, userId: string, email?: string) {
  if (email !== undefined) {
    const address = email.trim()
    if (!address || address.length > EMAIL_MAX || !EMAIL.test(address))
      throw new Invalid('Validation failed: Email is invalid', {
        email: [{ error: 'ERR_INVALID', description: 'is invalid' }],
      })
    const taken = await trx('users')
      .whereRaw('lower(email) = lower(?)', [address])
      .whereNot({ id: userId })
      .first('id')
    if (taken)
      throw new Invalid('Validation failed: Email has already been taken', {
        email: [{ error: 'ERR_TAKEN', description: 'has already been taken' }],
      })
    await trx('users').where({ id: userId }).update({ email: address })
  }
  await mailConfirmation(trx, userId)
}
