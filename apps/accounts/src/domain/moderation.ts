import type { Knex } from '@roost/db'
import type { AccountsContext } from '../context'
import * as outbox from '../outbox/outbox'
import { revokeTokens } from './tokens'
import { publishLoginState } from '../users/login-state'

/** What moderation needs: enough to run from the admin API and from the command line alike. */
export type ModerationContext = Pick<AccountsContext, 'db' | 'revocations' | 'logins'>

export const ROLES = ['user', 'moderator', 'admin'] as const
export type Role = (typeof ROLES)[number]

async function userOf(db: Knex, accountId: string): Promise<{ id: string } | undefined> {
  return db('users').where({ account_id: accountId }).select('id').first()
}

/**
 * Suspends an account: marks it, revokes every token of its user (which also ends their push subscriptions)
 * and records `account.suspended`, all in one transaction so the event exists exactly when the suspension does.
 */
export async function suspendAccount(ctx: ModerationContext, accountId: string) {
  await ctx.db.transaction(async (trx) => {
    await trx('accounts')
      .where({ id: accountId })
      .whereNull('suspended_at')
      .update({ suspended_at: trx.fn.now() })
    const user = await userOf(trx, accountId)
    if (!user) return
    await outbox.add(trx, { event: 'account.suspended', userId: user.id, accountId })
    // revokeTokens runs in a savepoint of this transaction: tokens, suspension and event commit together.
    await revokeTokens({ ...ctx, db: trx }, (q) => q.where('user_id', user.id))
  })
  await publishLoginState(ctx, accountId)
}

export async function unsuspendAccount(ctx: ModerationContext, accountId: string) {
  await ctx.db('accounts').where({ id: accountId }).update({ suspended_at: null })
  await publishLoginState(ctx, accountId)
}

/** Silenced ("limited") accounts read with `limited: true`. */
export async function silenceAccount(db: Knex, accountId: string) {
  await db('accounts').where({ id: accountId }).update({ silenced_at: db.fn.now() })
}

/**
 * A disabled login keeps its tokens, but every user endpoint answers 403 "Your login is currently disabled",
 * push's included (through the login refusals in Redis).
 */
export async function disableUser(ctx: ModerationContext, accountId: string) {
  await ctx.db('users').where({ account_id: accountId }).update({ disabled: true })
  await publishLoginState(ctx, accountId)
}

/** Approves a pending sign-up; false if there was no pending user. */
export async function approveUser(ctx: ModerationContext, accountId: string): Promise<boolean> {
  const approved = await ctx.db.transaction(async (trx) => {
    // Active from now: the time spent waiting for approval does not make them a returning user.
    const n = await trx('users')
      .where({ account_id: accountId, approved: false })
      .update({ approved: true, current_sign_in_at: trx.fn.now() })
    if (n) await outbox.add(trx, { event: 'home_feed.created', accountId })
    return n > 0
  })
  await publishLoginState(ctx, accountId)
  return approved
}

/**
 * Rejects a pending sign-up, in one transaction: its tokens are revoked (published as revoked, so they stop
 * working everywhere, push included), `user.deleted` is recorded (push drops the user's subscriptions), and the user
 * and its account are deleted. False if there was no pending user.
 */
export async function rejectUser(ctx: ModerationContext, accountId: string): Promise<boolean> {
  return ctx.db.transaction(async (trx) => {
    const user = await trx('users').where({ account_id: accountId, approved: false }).forUpdate().first('id')
    if (!user) return false
    // revokeTokens runs in a savepoint of this transaction: revocations, event and deletion commit together.
    await revokeTokens({ ...ctx, db: trx }, (q) => q.where('user_id', user.id))
    await outbox.add(trx, { event: 'user.deleted', userId: user.id })
    await trx('users').where({ id: user.id }).delete()
    await trx('accounts').where({ id: accountId }).delete()
    return true
  })
}

/** Marks the user's e-mail address as confirmed (for servers with REQUIRE_EMAIL_CONFIRMATION and no mailer). */
export async function confirmUser(ctx: ModerationContext, accountId: string) {
  await ctx
    .db('users')
    .where({ account_id: accountId })
    .whereNull('confirmed_at')
    .update({ confirmed_at: ctx.db.fn.now() })
  await publishLoginState(ctx, accountId)
}

export async function setRole(db: Knex, accountId: string, role: Role) {
  await db('users').where({ account_id: accountId }).update({ role })
}
