import type { AccountsContext } from '../context'
import { maySignIn } from './login-state'
import { verifyPassword } from './passwords'

export interface UserRow {
  id: string
  account_id: string
  email: string
  encrypted_password: string
  locale: string
  role: string
  approved: boolean
  disabled: boolean
  confirmed_at: Date | null
  default_privacy: string
  default_sensitive: boolean
  default_language: string | null
  sign_up_reason: string | null
  created_by_application_id: string | null
  created_at: Date
  /** The last API use, at a day's precision (Mastodon's user tracking). */
  current_sign_in_at: Date
}

/** The user for an e-mail address (or username) and password, if both match and the login is usable. */
export async function signInWithPassword(ctx: AccountsContext, login: string, password: string) {
  const user: (UserRow & { suspended_at: Date | null }) | undefined = await ctx
    .db('users')
    .join('accounts', 'accounts.id', 'users.account_id')
    .where((q) =>
      q
        .whereRaw('lower(users.email) = lower(?)', [login])
        .orWhereRaw('lower(accounts.username) = lower(?)', [login]),
    )
    .select('users.*', 'accounts.suspended_at')
    .first()
  if (!user || !(await verifyPassword(password, user.encrypted_password))) return undefined
  if (!maySignIn(user)) return undefined
  const { suspended_at: _suspended, ...row } = user
  return row as UserRow
}
