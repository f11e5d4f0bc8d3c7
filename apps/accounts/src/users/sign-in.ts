import type { AccountsContext } from '../context'
import { maySignIn } from './login-state'
import { verifyPassword } from '../domain/password-hashes'
import type { UserRow } from '../db/rows'

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
