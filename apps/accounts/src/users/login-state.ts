import type { LoginRefusals } from '@roost/auth'
import type { Knex } from '@roost/db'

/** The user and account facts that decide whether a login can be used. */
export interface LoginFacts {
  confirmed_at: Date | null
  approved: boolean
  disabled: boolean
  suspended_at: Date | null
}

/**
 * Mastodon's `require_functional!` messages: why the user's token gets 403 on every user endpoint, or undefined
 * when the login is usable.
 */
export function loginRefusal(facts: LoginFacts): string | undefined {
  if (!facts.confirmed_at) return 'Your login is missing a confirmed e-mail address'
  if (!facts.approved) return 'Your login is currently pending approval'
  if (facts.disabled || facts.suspended_at) return 'Your login is currently disabled'
  return undefined
}

/**
 * Whether the user may sign in and be given new tokens (the password grant, the authorization pages, the code
 * exchange): not when disabled, pending approval or suspended. Suspension revokes every token, so issuing a new
 * one would undo it. An unconfirmed user may sign in, as in Mastodon; their token then gets 403s.
 */
export const maySignIn = (facts: Omit<LoginFacts, 'confirmed_at'>) =>
  !facts.disabled && facts.approved && !facts.suspended_at

const factsQuery = (db: Knex) =>
  db('users')
    .join('accounts', 'accounts.id', 'users.account_id')
    .select('users.id', 'users.confirmed_at', 'users.approved', 'users.disabled', 'accounts.suspended_at')

/**
 * Writes the user's refusal (or its absence) to Redis for the push service, after a change of state has been
 * committed. By account id, as moderation addresses accounts.
 */
export async function publishLoginState(ctx: { db: Knex; logins: LoginRefusals }, accountId: string) {
  const row = await factsQuery(ctx.db).where('users.account_id', accountId).first()
  if (row) await ctx.logins.set(String(row.id), loginRefusal(row))
}

/** Every refusal, written in full: at start-up and when Redis has lost its data. */
export async function publishAllLoginStates(ctx: { db: Knex; logins: LoginRefusals }) {
  const rows = await factsQuery(ctx.db).where((q) =>
    q
      .whereNull('users.confirmed_at')
      .orWhere('users.approved', false)
      .orWhere('users.disabled', true)
      .orWhereNotNull('accounts.suspended_at'),
  )
  await ctx.logins.replace(new Map(rows.map((row) => [String(row.id), loginRefusal(row)!])))
}
