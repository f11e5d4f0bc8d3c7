import type { Request, Response } from 'express'
import type { AccountsContext } from '../../../context'
import { renderCredentialAccount, urlsOf } from '../../../entities/account'
import type { CurrentUser } from '../../../users/current'
import { requireUser } from '../../../users/current'
import { withMovedTo } from '../../../queries/accounts'
import { renderRole, roleOf } from '../../../users/roles'

/** Mastodon counts pending follow requests only this far (`follow_requests.limit(40).count`). */
export const FOLLOW_REQUESTS_COUNT_MAX = 40

/** Pending follow requests to the account, counted up to 40, from the same requesters GET /follow_requests lists. */
export async function countPendingFollowRequests(ctx: AccountsContext, accountId: string): Promise<number> {
  const pending = ctx
    .db('follow_requests')
    .join('accounts', 'accounts.id', 'follow_requests.account_id')
    .where('follow_requests.target_account_id', accountId)
    .whereNull('accounts.suspended_at')
    .select('follow_requests.id')
    .limit(FOLLOW_REQUESTS_COUNT_MAX)
  const [row] = await ctx.db.from(pending.as('pending')).count<{ count: string }[]>({ count: '*' })
  return Number(row?.count ?? 0)
}

/** The signed-in user as a CredentialAccount (Account + source + role). */
export async function credentialAccount(ctx: AccountsContext, current: CurrentUser) {
  const followRequests = await countPendingFollowRequests(ctx, current.account.id)
  const [account] = await withMovedTo(ctx.db, [current.account])
  // The user's role as it is now, custom roles too (users/roles.ts).
  const { role } = await roleOf(ctx.db, current.user.role)
  const badge = role.highlighted ? { id: String(role.id), name: role.name, color: role.color } : null
  return {
    ...renderCredentialAccount(
      { ...account!, role: current.user.role, role_badge: badge },
      current.user,
      urlsOf(ctx.config),
      followRequests,
    ),
    role: renderRole(role),
  }
}

/** GET /api/v1/accounts/verify_credentials (docs/mastodon-compatibility.md, "Accounts"). */
export async function verifyCredentials(ctx: AccountsContext, req: Request, res: Response) {
  res.json(await credentialAccount(ctx, await requireUser(ctx, req)))
}
