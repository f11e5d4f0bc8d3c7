import type { Request, Response } from 'express'
import { passwordChangeParams, readParams } from '@roost/routes'
import { unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { changePassword } from '../../../domain/passwords'
import { guardCredentials, guardRequests } from '../../../oauth/throttle'
import { requireUser } from '../../../users/current'
import { hashPassword, newPasswordProblem, verifyPassword } from '../../../domain/password-hashes'

/**
 * POST /api/v1/user/password_change — `old_password`, `new_password`: a Roost addition with GoToSocial's name and
 * parameters (Mastodon changes passwords only on its settings pages; docs/mastodon-compatibility.md). The current
 * password must be given: a wrong one is 422 and counts as a failed sign-in of the account (oauth/throttle.ts);
 * changes are throttled per user (RATE_LIMIT_PASSWORD_CHANGES). Every other token of the user is revoked, the one
 * making the change stays; the user is told by mail. `{}`.
 */
export async function passwordChange(ctx: AccountsContext, req: Request, res: Response) {
  const { user, account } = await requireUser(ctx, req)
  const p = readParams(req, passwordChangeParams)
  await guardRequests(
    ctx,
    req,
    res,
    'password-changes',
    { subject: ctx.config.RATE_LIMIT_PASSWORD_CHANGES },
    `user:${user.id}`,
  )
  const throttle = await guardCredentials(ctx, req, res, [`login:${account.username}`])
  if (
    typeof p.old_password !== 'string' ||
    !(await verifyPassword(p.old_password, user.encrypted_password))
  ) {
    await throttle.fail()
    throw unprocessable('Validation failed: Current password is invalid')
  }
  const problem = newPasswordProblem(p.new_password)
  if (problem) throw unprocessable(`Validation failed: ${problem}`)
  const encryptedPassword = await hashPassword(p.new_password as string)
  await ctx.db.transaction((trx) =>
    changePassword(trx, ctx.revocations, user.id, encryptedPassword, req.token!.tokenId),
  )
  res.json({})
}
