import type { Request, Response } from 'express'
import { confirmationParams, confirmationRequestParams, readParams } from '@roost/routes'
import type { AccountsContext } from '../context'
import { mailConfirmationTo } from '../domain/mail'
import { confirmEmail } from '../domain/users'
import { validCsrf } from '../oauth/session'
import { guardCredentials, guardRequests } from '../oauth/throttle'
import { publishLoginState } from '../users/login-state'
import { confirmationNewPage, confirmationSentPage, confirmedPage } from './pages'
import { answerBadLink, authCsrf, EMAIL, expiredForm, pageHeaders, pageThrottled } from './passwords'

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

/** GET /auth/confirmation/new — the form that asks for the confirmation mail again (Mastodon's page). */
export async function newConfirmation(ctx: AccountsContext, req: Request, res: Response) {
  pageHeaders(res)
  res.type('html').send(confirmationNewPage({ csrf: authCsrf(ctx, req, res) }))
}

/**
 * POST /auth/confirmation — sends a new confirmation link if an unconfirmed account uses the address, and answers
 * the same page either way. Throttled as the other mail forms (RATE_LIMIT_MAIL_*, per client address and per
 * address, counting every request), under the same budget as the API's resend.
 */
export async function requestConfirmation(ctx: AccountsContext, req: Request, res: Response) {
  const p = readParams(req, confirmationRequestParams)
  pageHeaders(res)
  if (!validCsrf(req, ctx.config.SESSION_SECRET, p.csrf_token))
    return expiredForm(res, '/auth/confirmation/new')
  const email = typeof p.email === 'string' ? p.email.trim() : ''
  if (!EMAIL.test(email) || email.length > 320)
    return res
      .status(422)
      .type('html')
      .send(
        confirmationNewPage({
          csrf: authCsrf(ctx, req, res),
          error: 'Enter the e-mail address you signed up with.',
        }),
      )
  const budgets = { ip: ctx.config.RATE_LIMIT_MAIL_IP, subject: ctx.config.RATE_LIMIT_MAIL_ACCOUNT }
  if (
    await pageThrottled(res, () =>
      guardRequests(ctx, req, res, 'email-confirmations', budgets, `email:${email.toLowerCase()}`),
    )
  )
    return
  await ctx.db.transaction((trx) => mailConfirmationTo(trx, email))
  res.type('html').send(confirmationSentPage())
}
