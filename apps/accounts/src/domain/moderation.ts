import type { RevocationList } from '@roost/auth'
import type { Knex } from '@roost/db'
import * as outbox from '../outbox/outbox'
import { mailOnActivation } from './mail'
import { revokeTokens } from './tokens'
import { markConfirmed } from './users'

/**
 * Moderation, from the admin API and the command line alike, each in the caller's transaction. A change to whether a
 * user may log in (suspension, disabling, approval, confirmation) is for the caller to publish once the transaction
 * has committed (`publishLoginState`, users/login-state.ts), so that push never hears of one that did not happen.
 */

export const ROLES = ['user', 'moderator', 'admin', 'owner'] as const
export type Role = (typeof ROLES)[number]

async function userOf(db: Knex, accountId: string): Promise<{ id: string } | undefined> {
  return db('users').where({ account_id: accountId }).select('id').first()
}

/**
 * Suspends an account: marks it, revokes every token of its user (which also ends their push subscriptions)
 * and records `account.suspended`, all in the caller's transaction so the event exists exactly when the suspension
 * does.
 */
export async function suspendAccount(trx: Knex, revocations: RevocationList, accountId: string) {
  await trx('accounts')
    .where({ id: accountId })
    .whereNull('suspended_at')
    .update({ suspended_at: trx.fn.now() })
  const user = await userOf(trx, accountId)
  if (!user) return
  await outbox.add(trx, { event: 'account.suspended', userId: user.id, accountId })
  // revokeTokens runs in a savepoint of this transaction: tokens, suspension and event commit together.
  await revokeTokens({ db: trx, revocations }, (q) => q.where('user_id', user.id))
}

/**
 * A moderator's "unsubscribe from push" (docs/moderation.md, "Unsubscribing from push"): every push subscription of
 * the account's user goes, until the user subscribes again. The subscriptions are the push service's, so this
 * records `push_subscriptions.revoked` and the push worker deletes them once the caller's transaction commits.
 */
export async function unsubscribeFromPush(trx: Knex, accountId: string) {
  const user = await userOf(trx, accountId)
  if (user) await outbox.add(trx, { event: 'push_subscriptions.revoked', userId: user.id })
}

export async function unsuspendAccount(trx: Knex, accountId: string) {
  await trx('accounts').where({ id: accountId }).update({ suspended_at: null })
}

/** Silenced ("limited") accounts read with `limited: true`. */
export async function silenceAccount(db: Knex, accountId: string) {
  await db('accounts').where({ id: accountId }).update({ silenced_at: db.fn.now() })
}

/**
 * A disabled login keeps its tokens, but every user endpoint answers 403 "Your login is currently disabled",
 * push's included (through the login refusals in Redis).
 */
export async function disableUser(trx: Knex, accountId: string) {
  await trx('users').where({ account_id: accountId }).update({ disabled: true })
}

/** Approves a pending sign-up (a confirmed one is welcomed by mail); false if there was no pending user. */
export async function approveUser(trx: Knex, accountId: string): Promise<boolean> {
  // Active from now: the time spent waiting for approval does not make them a returning user.
  const [user] = await trx('users')
    .where({ account_id: accountId, approved: false })
    .update({ approved: true, current_sign_in_at: trx.fn.now() })
    .returning(['id', 'confirmed_at'])
  if (!user) return false
  await outbox.add(trx, { event: 'home_feed.created', accountId })
  await mailOnActivation(trx, { userId: user.id, accountId, confirmed: !!user.confirmed_at, approved: true })
  return true
}

/**
 * Rejects a pending sign-up, in the caller's transaction: its tokens are revoked (published as revoked, so they stop
 * working everywhere, push included), `user.deleted` is recorded (push drops the user's subscriptions), and the user
 * and its account are deleted. False if there was no pending user.
 */
export async function rejectUser(
  trx: Knex,
  revocations: RevocationList,
  accountId: string,
): Promise<boolean> {
  const user = await trx('users').where({ account_id: accountId, approved: false }).forUpdate().first('id')
  if (!user) return false
  // revokeTokens runs in a savepoint of this transaction: revocations, event and deletion commit together.
  await revokeTokens({ db: trx, revocations }, (q) => q.where('user_id', user.id))
  await outbox.add(trx, { event: 'user.deleted', userId: user.id })
  await trx('users').where({ id: user.id }).delete()
  await trx('accounts').where({ id: accountId }).delete()
  return true
}

/**
 * Marks the user's e-mail address as confirmed by a moderator's word (the CLI), as its confirmation link would:
 * the welcome or the moderators' notice follows (`markConfirmed`).
 */
export async function confirmUser(trx: Knex, accountId: string) {
  const user = await userOf(trx, accountId)
  if (user) await markConfirmed(trx, user.id)
}

export async function setRole(db: Knex, accountId: string, role: Role) {
  await db('users').where({ account_id: accountId }).update({ role })
}
