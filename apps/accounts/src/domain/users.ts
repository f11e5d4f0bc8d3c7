import type { Knex } from '@roost/db'
import type { KeyPair } from '../federation/transport/keys'
import * as outbox from '../outbox/outbox'

export interface NewUser {
  username: string
  email: string
  /**
   * The password as stored (`hashPassword`, users/passwords.ts), hashed by the caller before its transaction, which
   * the ~60 ms of scrypt would otherwise hold open.
   */
  encryptedPassword: string
  locale?: string
  role?: 'user' | 'moderator' | 'admin'
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
  return { userId: row.id as string, accountId: account.id as string }
}
