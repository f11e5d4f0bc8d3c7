import type { Request, Response } from 'express'
import { Gone, Invalid } from '@roost/errors'
import {
  editPasswordParams,
  passwordResetRequestParams,
  readParams,
  resetPasswordParams,
} from '@roost/routes'
import { HttpError } from '@roost/service'
import type { AccountsContext } from '../context'
import { askForPasswordReset, resetPassword } from '../domain/passwords'
import { checkUserToken } from '../domain/user_tokens'
import { csrfToken, validCsrf } from '../oauth/session'
import { guardCredentials, guardRequests } from '../oauth/throttle'
import { hashPassword, newPasswordProblem } from '../domain/password-hashes'
import {
  passwordChangedPage,
  passwordEditPage,
  passwordNewPage,
  passwordSentPage,
  problemPage,
} from './pages'

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * The headers of every /auth page: never cached, never framed, no scripts, forms only to this server, and no
 * Referer (the reset page's address holds its token).
 */
export function pageHeaders(res: Response) {
  res.set({
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  })
}

const secure = (ctx: AccountsContext) => ctx.config.PUBLIC_URL.startsWith('https:')
export const authCsrf = (ctx: AccountsContext, req: Request, res: Response) =>
  csrfToken(req, res, ctx.config.SESSION_SECRET, secure(ctx), '/auth')

const ASK_AGAIN = { href: '/auth/password/new', label: 'Ask for a new link' }

/** A 429 of the throttles, as a page; anything else goes on. */
export async function pageThrottled(res: Response, guard: () => Promise<unknown>): Promise<boolean> {
  try {
    await guard()
    return false
  } catch (err) {
    if (!(err instanceof HttpError) || err.status !== 429) throw err
    res.status(429).type('html').send(problemPage('Too many attempts', 'Too many attempts. Try again later.'))
    return true
  }
}

/** An unusable link (Invalid: unknown, malformed, used; Gone: expired) as a page; anything else goes on. */
export function answerBadLink(
  res: Response,
  err: unknown,
  retry: { href: string; label: string } | null = ASK_AGAIN,
) {
  const again = retry ?? undefined
  if (err instanceof Gone)
    return res
      .status(410)
      .type('html')
      .send(problemPage('This link has expired', err.message, again))
  if (err instanceof Invalid)
    return res
      .status(422)
      .type('html')
      .send(problemPage('This link does not work', err.message, again))
  throw err
}

export function expiredForm(res: Response, href: string) {
  return res
    .status(403)
    .type('html')
    .send(
      problemPage(
        'The form has expired',
        'The form was sent without its security token. Reload it and try again.',
        {
          href,
          label: 'Back to the form',
        },
      ),
    )
}

/** GET /auth/password/new — the form that asks for a reset link. */
export async function newPassword(ctx: AccountsContext, req: Request, res: Response) {
  pageHeaders(res)
  res.type('html').send(passwordNewPage({ csrf: authCsrf(ctx, req, res) }))
}

/**
 * POST /auth/password — sends a reset link to the address if an account uses it, and answers the same page either
 * way, so the form tells nobody which addresses have accounts. Throttled per client address and per address
 * (RATE_LIMIT_MAIL_*), counting every request.
 */
export async function requestPasswordReset(ctx: AccountsContext, req: Request, res: Response) {
  const p = readParams(req, passwordResetRequestParams)
  pageHeaders(res)
  if (!validCsrf(req, ctx.config.SESSION_SECRET, p.csrf_token)) return expiredForm(res, '/auth/password/new')
  const email = typeof p.email === 'string' ? p.email.trim() : ''
  if (!EMAIL.test(email) || email.length > 320)
    return res
      .status(422)
      .type('html')
      .send(
        passwordNewPage({
          csrf: authCsrf(ctx, req, res),
          error: 'Enter the e-mail address of your account.',
        }),
      )
  const budgets = { ip: ctx.config.RATE_LIMIT_MAIL_IP, subject: ctx.config.RATE_LIMIT_MAIL_ACCOUNT }
  if (
    await pageThrottled(res, () => guardRequests(ctx, req, res, 'password-resets', budgets, `email:${email}`))
  )
    return
  await ctx.db.transaction((trx) => askForPasswordReset(trx, email))
  res.type('html').send(passwordSentPage())
}

/** GET /auth/password/edit?reset_password_token=… — the new password's form, for a link that still works. */
export async function editPassword(ctx: AccountsContext, req: Request, res: Response) {
  const { reset_password_token: token } = readParams(req, editPasswordParams)
  pageHeaders(res)
  try {
    await checkUserToken(ctx.db, 'password_reset', token)
  } catch (err) {
    return answerBadLink(res, err)
  }
  res.type('html').send(passwordEditPage({ token: token as string, csrf: authCsrf(ctx, req, res) }))
}

/**
 * POST /auth/password/edit — resets the password with the link's token: used once, within 6 hours; every access
 * token of the user revoked (their push subscriptions and streams with them) and the user told by mail
 * (domain/passwords.ts). A bad token counts as a failed sign-in of the client address (oauth/throttle.ts).
 */
export async function resetPasswordWithToken(ctx: AccountsContext, req: Request, res: Response) {
  const p = readParams(req, resetPasswordParams)
  pageHeaders(res)
  const token = typeof p.reset_password_token === 'string' ? p.reset_password_token : ''
  const back = `/auth/password/edit?reset_password_token=${encodeURIComponent(token)}`
  if (!validCsrf(req, ctx.config.SESSION_SECRET, p.csrf_token)) return expiredForm(res, back)
  let throttle: Awaited<ReturnType<typeof guardCredentials>> | undefined
  if (await pageThrottled(res, async () => (throttle = await guardCredentials(ctx, req, res, [])))) return
  try {
    await checkUserToken(ctx.db, 'password_reset', token)
  } catch (err) {
    await throttle!.fail()
    return answerBadLink(res, err)
  }
  const problem = newPasswordProblem(p.password, p.password_confirmation)
  if (problem)
    return res
      .status(422)
      .type('html')
      .send(passwordEditPage({ token, csrf: authCsrf(ctx, req, res), error: problem }))
  const encryptedPassword = await hashPassword(p.password as string)
  try {
    await ctx.db.transaction((trx) => resetPassword(trx, ctx.revocations, token, encryptedPassword))
  } catch (err) {
    return answerBadLink(res, err) // used by another request meanwhile
  }
  res.type('html').send(passwordChangedPage())
}
