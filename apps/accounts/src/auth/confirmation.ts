import type { Request, Response } from 'express'
import { confirmationParams, readParams } from '@roost/routes'
import type { AccountsContext } from '../context'
import { confirmEmail } from '../domain/users'
import { guardCredentials } from '../oauth/throttle'
import { publishLoginState } from '../users/login-state'
import { confirmedPage } from './pages'
import { answerBadLink, pageHeaders, pageThrottled } from './passwords'

/**
 * GET /auth/confirmation?confirmation_token=… — the link of the confirmation mail (Mastodon's address): confirms
 * the address, once; the user's token works from then on (the login state is published for push too), and the
 * welcome or the moderators' notice follows by mail. A bad token counts as a failed sign-in of the client address.
 */
export async function confirmation(ctx: AccountsContext, req: Request, res: Response) {
  const { confirmation_token: token } = readParams(req, confirmationParams)
  pageHeaders(res)
  let throttle: Awaited<ReturnType<typeof guardCredentials>> | undefined
  if (await pageThrottled(res, async () => (throttle = await guardCredentials(ctx, req, res, [])))) return
  let confirmed: { userId: string; accountId: string }
  try {
    confirmed = await ctx.db.transaction((trx) => confirmEmail(trx, token))
  } catch (err) {
    await throttle!.fail()
    // The app the user signed up with can send a new link (POST /api/v1/emails/confirmations).
    return answerBadLink(res, err, null)
  }
  await publishLoginState(ctx, confirmed.accountId)
  const account = await ctx.db('accounts').where({ id: confirmed.accountId }).first('username')
  res.type('html').send(confirmedPage(account.username))
}
