import type { Request, Response } from 'express'
import { readParams, resendConfirmationParams } from '@roost/routes'
import { forbidden, userRequired } from '@roost/service'
import type { AccountsContext } from '../../../context'
import type { UserRow } from '../../../db/rows'
import { resendConfirmation as sendAgain } from '../../../domain/users'
import { guardRequests } from '../../../oauth/throttle'

/**
 * The user of the request's token, whatever the state of their login: these calls are for users whose address is
 * not confirmed yet, whom `requireUser` refuses.
 */
async function tokenUser(ctx: AccountsContext, req: Request): Promise<UserRow> {
  const userId = req.token?.userId
  const user = userId ? await ctx.db<UserRow>('users').where({ id: userId }).first() : undefined
  if (!user) throw userRequired()
  return user
}

/**
 * POST /api/v1/emails/confirmations — sends the confirmation link again, to `email` if given (the address is
 * changed first), as Mastodon's Api::V1::Emails::ConfirmationsController: only for the app the user signed up
 * with, only while the address is unconfirmed (403 otherwise), throttled per client address and per user
 * (RATE_LIMIT_MAIL_*: Mastodon's throttle_email_confirmations, 25 per 5 minutes and 5 per 30 minutes). `{}`.
 */
export async function resendConfirmation(ctx: AccountsContext, req: Request, res: Response) {
  const user = await tokenUser(ctx, req)
  const token = await ctx.db('oauth_access_tokens').where({ id: req.token!.tokenId }).first('application_id')
  if (!token || String(token.application_id) !== String(user.created_by_application_id))
    throw forbidden('This method is only available to the application the user originally signed-up with')
  if (user.confirmed_at)
    throw forbidden('This method is only available while the e-mail is awaiting confirmation')
  // Counted once it would send a mail (Mastodon's Rack::Attack counts the refused calls too).
  const budgets = { ip: ctx.config.RATE_LIMIT_MAIL_IP, subject: ctx.config.RATE_LIMIT_MAIL_ACCOUNT }
  await guardRequests(ctx, req, res, 'email-confirmations', budgets, `user:${user.id}`)
  const { email } = readParams(req, resendConfirmationParams)
  await ctx.db.transaction((trx) => sendAgain(trx, user.id, email))
  res.json({})
}

/** GET /api/v1/emails/check_confirmation — whether the user's address is confirmed: `true` or `false`. */
export async function checkConfirmation(ctx: AccountsContext, req: Request, res: Response) {
  const user = await tokenUser(ctx, req)
  res.json(!!user.confirmed_at)
}
