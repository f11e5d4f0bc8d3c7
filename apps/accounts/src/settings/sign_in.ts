import { randomBytes } from 'node:crypto'
import type { Request, Response } from 'express'
import { readParams, returnToParams, settingsSignInParams } from '@roost/routes'
import type { AccountsContext } from '../context'
import { authCsrf, expiredForm } from '../auth/passwords'
import { problemPage } from '../auth/pages'
import { twoFactorPage } from '../oauth/pages'
import { pendingSignInUserId, validCsrf } from '../oauth/session'
import { passwordStep, secondFactorOptions, secondFactorStep } from '../oauth/sign-in-steps'
import { safeReturnTo, settingsHeaders } from './common'
import { signInFormPage } from './pages'

/**
 * /auth/sign_in: signing in for the settings pages without an app (docs/security.md, "Settings pages"), the
 * same steps as the OAuth sign-in page (oauth/sign-in-steps.ts), then back to `return_to`.
 */
export async function showSignIn(ctx: AccountsContext, req: Request, res: Response) {
  const { return_to } = readParams(req, returnToParams)
  settingsHeaders(res)
  res.type('html').send(signInFormPage({ csrf: authCsrf(ctx, req, res), returnTo: safeReturnTo(return_to) }))
}

async function secondStep(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  returnTo: string | undefined,
  status: number,
  error?: string,
  keyOptions?: unknown,
) {
  const userId = pendingSignInUserId(req, ctx.config.SESSION_SECRET)
  const options = keyOptions ?? (userId ? await secondFactorOptions(ctx, userId) : undefined)
  const nonce = randomBytes(16).toString('base64')
  settingsHeaders(res, nonce)
  res
    .status(status)
    .type('html')
    .send(
      twoFactorPage({
        action: '/auth/sign_in',
        fields: { return_to: returnTo },
        csrf: authCsrf(ctx, req, res),
        error,
        keyOptions: options,
        nonce,
      }),
    )
}

export async function signIn(ctx: AccountsContext, req: Request, res: Response) {
  const p = readParams(req, settingsSignInParams)
  const returnTo = safeReturnTo(p.return_to)
  settingsHeaders(res)
  if (!validCsrf(req, ctx.config.SESSION_SECRET, p.csrf_token)) return expiredForm(res, '/auth/sign_in')
  const isCode = p.action === 'two_factor'
  const outcome = isCode
    ? await secondFactorStep(ctx, req, res, { code: p.code, credential: p.credential })
    : await passwordStep(ctx, req, res, p.email, p.password)
  switch (outcome.kind) {
    case 'throttled':
      return res
        .status(429)
        .type('html')
        .send(problemPage('Too many attempts', 'Too many failed sign-in attempts. Try again later.'))
    case 'signed_in':
      return res.redirect(303, returnTo ?? '/settings/sessions')
    case 'expired':
      return res
        .status(401)
        .type('html')
        .send(
          signInFormPage({
            csrf: authCsrf(ctx, req, res),
            returnTo,
            error: 'The sign-in has expired. Sign in again.',
          }),
        )
    case 'wrong':
      if (isCode) return secondStep(ctx, req, res, returnTo, 401, outcome.error)
      return res
        .status(401)
        .type('html')
        .send(signInFormPage({ csrf: authCsrf(ctx, req, res), returnTo, error: outcome.error }))
    case 'second_factor':
      return secondStep(ctx, req, res, returnTo, 200, undefined, outcome.keyOptions)
  }
}
