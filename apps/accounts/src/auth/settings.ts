import type { Request, Response } from 'express'
import { readParams, settingsSignInParams } from '@roost/routes'
import { HttpError } from '@roost/service'
import type { AccountsContext } from '../context'
import type { AccountRow, UserRow } from '../db/rows'
import { csrfToken, readSession, startSession, validCsrf } from '../oauth/session'
import { guardCredentials } from '../oauth/throttle'
import { maySignIn } from '../users/login-state'
import { signInWithPassword } from '../users/sign-in'
import { pageHeaders } from './passwords'
import { problemPage } from './pages'
import { settingsSignInPage } from './settings-pages'

/**
 * What the settings pages of invites, one's data and leaving share (docs/security.md, "Your data"): the signed-in
 * user of the OAuth pages' session cookie (oauth/session.ts), CSRF tokens bound to that session, and a sign-in
 * form of their own for a visitor who comes without a session.
 */

export interface SettingsUser {
  user: UserRow
  account: AccountRow
}

const secure = (ctx: AccountsContext) => ctx.config.PUBLIC_URL.startsWith('https:')
export const settingsCsrf = (ctx: AccountsContext, req: Request, res: Response) =>
  csrfToken(req, res, ctx.config.SESSION_SECRET, secure(ctx), '/settings')

/**
 * The session's user if it may sign in and the session began after the password's last change (the rule of the
 * OAuth pages, oauth/authorize.ts), else undefined.
 */
export async function settingsUser(ctx: AccountsContext, req: Request): Promise<SettingsUser | undefined> {
  const session = readSession(req, ctx.config.SESSION_SECRET)
  if (!session) return undefined
  const user: UserRow | undefined = await ctx.db('users').where({ id: session.userId }).first()
  const account: AccountRow | undefined =
    user && (await ctx.db('accounts').where({ id: user.account_id }).first())
  if (!user || !account) return undefined
  if (user.password_changed_at && session.startedAt < new Date(user.password_changed_at).getTime())
    return undefined
  return maySignIn({ ...user, suspended_at: account.suspended_at }) ? { user, account } : undefined
}

/** Only settings pages are places to go back to after signing in: never another site. */
const SETTINGS_PATH = /^\/settings\/(invites|export|imports|delete)$/

/**
 * The signed-in user of a settings page; without one, answers the sign-in form (401 for a form's POST, whose
 * content is lost, 200 for a page) and gives undefined.
 */
export async function requireSettingsUser(
  ctx: AccountsContext,
  req: Request,
  res: Response,
): Promise<SettingsUser | undefined> {
  pageHeaders(res)
  const found = await settingsUser(ctx, req)
  if (found) return found
  const returnTo = SETTINGS_PATH.test(req.path) ? req.path : '/settings/export'
  res
    .status(401)
    .type('html')
    .send(settingsSignInPage({ csrf: settingsCsrf(ctx, req, res), returnTo }))
  return undefined
}

/** A form sent without its CSRF token (or with another session's): 403, nothing done. */
export function checkForm(ctx: AccountsContext, req: Request, res: Response, token: unknown, back: string) {
  if (validCsrf(req, ctx.config.SESSION_SECRET, token)) return true
  res
    .status(403)
    .type('html')
    .send(
      problemPage(
        'The form has expired',
        'The form was sent without its security token. Reload it and try again.',
        { href: back, label: 'Back to the form' },
      ),
    )
  return false
}

/** GET /settings/sign_in */
export async function showSettingsSignIn(ctx: AccountsContext, req: Request, res: Response) {
  pageHeaders(res)
  const returnTo = typeof req.query.return_to === 'string' ? req.query.return_to : ''
  res.type('html').send(
    settingsSignInPage({
      csrf: settingsCsrf(ctx, req, res),
      returnTo: SETTINGS_PATH.test(returnTo) ? returnTo : '/settings/export',
    }),
  )
}

/**
 * POST /settings/sign_in — the OAuth pages' sign-in (same throttle, same session cookie) for the settings pages.
 * A second factor, once Roost has one, must be asked here as on the OAuth pages.
 */
export async function settingsSignIn(ctx: AccountsContext, req: Request, res: Response) {
  const p = readParams(req, settingsSignInParams)
  pageHeaders(res)
  const returnTo =
    typeof p.return_to === 'string' && SETTINGS_PATH.test(p.return_to) ? p.return_to : '/settings/export'
  if (!checkForm(ctx, req, res, p.csrf_token, `/settings/sign_in?return_to=${encodeURIComponent(returnTo)}`))
    return
  const login = typeof p.email === 'string' ? p.email : undefined
  let throttle: Awaited<ReturnType<typeof guardCredentials>>
  try {
    throttle = await guardCredentials(ctx, req, res, [login && `login:${login}`])
  } catch (err) {
    if (!(err instanceof HttpError) || err.status !== 429) throw err
    return res
      .status(429)
      .type('html')
      .send(problemPage('Too many attempts', 'Too many failed sign-in attempts. Try again later.'))
  }
  const user =
    login && typeof p.password === 'string' ? await signInWithPassword(ctx, login, p.password) : undefined
  if (!user) {
    await throttle.fail()
    return res
      .status(422)
      .type('html')
      .send(
        settingsSignInPage({
          csrf: settingsCsrf(ctx, req, res),
          returnTo,
          error: 'Invalid e-mail address or password.',
        }),
      )
  }
  startSession(res, ctx.config.SESSION_SECRET, user.id, secure(ctx))
  res.redirect(303, returnTo)
}
