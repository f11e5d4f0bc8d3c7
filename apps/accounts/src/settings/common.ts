import type { Request, Response } from 'express'
import type { AccountsContext } from '../context'
import type { AccountRow, UserRow } from '../db/rows'
import { problemPage } from '../auth/pages'
import { expiredForm, pageThrottled } from '../auth/passwords'
import { sessionUser } from '../oauth/authorize'
import { csrfToken, validCsrf } from '../oauth/session'
import { guardCredentials } from '../oauth/throttle'

/**
 * What the settings pages share (docs/security.md, "Settings pages"): the OAuth pages' sign-in session names the
 * user (absent or ended: off to /auth/sign_in, and back afterwards), forms carry a CSRF token bound to that session,
 * and the pages are never cached or framed. A page with a security-key button allows only its own script (nonce).
 * Styles: the web app's style sheet from this origin (the frame, ./frame.ts), and inline ones for the pages in the
 * OAuth pages' look that these addresses also answer (signing in, problems).
 */
export function settingsHeaders(res: Response, nonce?: string) {
  res.set({
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': `default-src 'none'; style-src 'self' 'unsafe-inline'; img-src data:; form-action 'self'${nonce ? `; script-src 'nonce-${nonce}'` : ''}`,
  })
}

/** A page to come back to after sign-in or enrolment: only this server's settings and authorization pages. */
export function safeReturnTo(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 4000) return undefined
  if (!/^\/(settings\/[\w/]*|oauth\/authorize\?.*)$/s.test(value) || value.startsWith('//')) return undefined
  return value
}

export const settingsCsrf = (ctx: AccountsContext, req: Request, res: Response) =>
  csrfToken(req, res, ctx.config.SESSION_SECRET, ctx.config.PUBLIC_URL.startsWith('https:'), '/settings')

/**
 * The signed-in user with their whole row, or undefined after redirecting to the sign-in page (a GET) or answering
 * 401 (a form: its data would be lost by a redirect anyway).
 */
export async function settingsUser(
  ctx: AccountsContext,
  req: Request,
  res: Response,
): Promise<(UserRow & { username: string }) | undefined> {
  const signedIn = await sessionUser(ctx, req)
  if (!signedIn) {
    settingsHeaders(res)
    if (req.method === 'GET')
      res.redirect(303, `/auth/sign_in?return_to=${encodeURIComponent(req.originalUrl)}`)
    else
      res
        .status(401)
        .type('html')
        .send(
          problemPage('Sign in first', 'Your sign-in has ended. Sign in again and send the form once more.', {
            href: '/auth/sign_in',
            label: 'Sign in',
          }),
        )
    return undefined
  }
  const user: UserRow = await ctx.db('users').where({ id: signedIn.id }).first()
  return { ...user, username: signedIn.username }
}

/** The signed-in user and their account, for the pages of invites, one's data and leaving. */
export interface SettingsAccount {
  user: UserRow
  account: AccountRow
}

/** settingsUser with the user's account row. */
export async function settingsAccount(
  ctx: AccountsContext,
  req: Request,
  res: Response,
): Promise<SettingsAccount | undefined> {
  const user = await settingsUser(ctx, req, res)
  if (!user) return undefined
  settingsHeaders(res)
  const account: AccountRow = await ctx.db('accounts').where({ id: user.account_id }).first()
  return { user, account }
}

/** A form's CSRF token: false after answering 403 when it is missing or wrong. */
export function formCsrf(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  token: unknown,
  back: string,
): boolean {
  if (validCsrf(req, ctx.config.SESSION_SECRET, token)) return true
  settingsHeaders(res)
  expiredForm(res, back)
  return false
}

/** The failed-sign-in throttle of a user's codes (wrong ones count), or undefined after answering 429. */
export async function codeThrottle(ctx: AccountsContext, req: Request, res: Response, userId: string) {
  let throttle: Awaited<ReturnType<typeof guardCredentials>> | undefined
  if (
    await pageThrottled(
      res,
      async () => (throttle = await guardCredentials(ctx, req, res, [`two-factor:${userId}`])),
    )
  )
    return undefined
  return throttle
}
