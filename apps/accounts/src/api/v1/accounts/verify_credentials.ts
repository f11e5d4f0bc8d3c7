import type { Request, Response } from 'express'
import type { AccountsContext } from '../../../context'
import { renderCredentialAccount, urlsOf } from '../../../entities/account'
import type { CurrentUser } from '../../../users/current'
import { requireUser } from '../../../users/current'

/**
 * Pending follow requests to the user, counted up to 40 as Mastodon does. Follow requests belong to the
 * relationships part of the service; until that table exists there are none.
 */
export async function countPendingFollowRequests(ctx: AccountsContext, accountId: string): Promise<number> {
  void ctx
  void accountId
  return 0
}

/** The signed-in user as a CredentialAccount (Account + source + role). */
export async function credentialAccount(ctx: AccountsContext, current: CurrentUser) {
  const followRequests = await countPendingFollowRequests(ctx, current.account.id)
  return renderCredentialAccount(
    { ...current.account, role: current.user.role },
    current.user,
    urlsOf(ctx.config.PUBLIC_URL),
    followRequests,
  )
}

/** GET /api/v1/accounts/verify_credentials (api-reference §3.3). */
export async function verifyCredentials(ctx: AccountsContext, req: Request, res: Response) {
  res.json(await credentialAccount(ctx, await requireUser(ctx, req)))
}
