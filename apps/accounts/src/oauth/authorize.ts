import { randomBytes } from 'node:crypto'
import type { Request, Response } from 'express'
import { isSubset, parseScopes } from '@roost/auth'
import { decideAuthorizationParams, readParams, showAuthorizationParams } from '@roost/routes'
import type { Params } from '@roost/service'
import type { AccountsContext } from '../context'
import { maySignIn } from '../users/login-state'
import { grantableScopes } from './admin-scopes'
import type { ApplicationRow } from '../db/rows'
import { OOB_REDIRECT_URI, redirectUris } from './applications'
import { codeDigest } from './token'
import { codePage, consentPage, errorPage, signInPage, twoFactorPage } from './pages'
import { csrfToken, pendingSignInUserId, readSession, validCsrf } from './session'
import { passwordStep, secondFactorOptions, secondFactorStep } from './sign-in-steps'
import type { StepOutcome } from './sign-in-steps'

const CODE_LIFETIME_MS = 10 * 60 * 1000 // Doorkeeper's default

/** The authorization request's own parameters, carried from page to page. */
const REQUEST_FIELDS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const

type AuthorizationRequest =
  | {
      ok: true
      app: ApplicationRow
      redirectUri: string
      scopes: string[]
      fields: Record<string, string | undefined>
    }
  | { ok: false; page: string }
  | { ok: false; redirect: string }

function redirectWith(uri: string, query: Record<string, string | undefined>) {
  const url = new URL(uri)
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v)
  return url.toString()
}

/** An error for the client: on a page for the out-of-band flow, else a redirect carrying `error` and `state`. */
function refusal(redirectUri: string, state: string | undefined, error: string, description: string) {
  return redirectUri === OOB_REDIRECT_URI
    ? ({ ok: false, page: description } as const)
    : ({
        ok: false,
        redirect: redirectWith(redirectUri, { error, error_description: description, state }),
      } as const)
}

const INVALID_SCOPE = 'The requested scope is invalid, unknown, or malformed.'

/**
 * The signed-in user, if the session names a usable one and began after the password's last change or reset
 * (docs/security.md, "Links sent by mail": a reset ends the sessions the old password opened).
 */
export async function sessionUser(ctx: AccountsContext, req: Request) {
  const session = readSession(req, ctx.config.SESSION_SECRET)
  const userId = session?.userId
  const user = userId
    ? await ctx
        .db('users')
        .join('accounts', 'accounts.id', 'users.account_id')
        .where('users.id', userId)
        .select(
          'users.id',
          'users.role',
          'users.disabled',
          'users.approved',
          'accounts.suspended_at',
          'accounts.username',
          'users.password_changed_at',
          'users.otp_enabled_at',
        )
        .first()
    : undefined
  if (user?.password_changed_at && session!.startedAt < new Date(user.password_changed_at).getTime())
    return undefined
  return user && maySignIn(user)
    ? (user as { id: string; role: string; username: string; otp_enabled_at: Date | null })
    : undefined
}

/**
 * With REQUIRE_STAFF_TWO_FACTOR, a moderator or admin without two-factor sign-in is sent to enrol before any app
 * is authorized (docs/security.md, "Two-factor sign-in"); back here afterwards.
 */
export const mustEnrol = (ctx: AccountsContext, user: { role: string; otp_enabled_at: Date | null }) =>
  ctx.config.REQUIRE_STAFF_TWO_FACTOR && !user.otp_enabled_at && user.role !== 'user'

function enrolFirst(res: Response, request: Extract<AuthorizationRequest, { ok: true }>) {
  const back = `/oauth/authorize?${requestQuery(request)}`
  return res.redirect(303, `/settings/two_factor?return_to=${encodeURIComponent(back)}`)
}

const requestQuery = (request: Extract<AuthorizationRequest, { ok: true }>) =>
  new URLSearchParams(
    Object.entries(request.fields).filter((e): e is [string, string] => e[1] !== undefined),
  ).toString()

/**
 * The scopes the signed-in user will be granted (admin-scopes.ts: without `admin:*` unless an admin); when none
 * is left, the client gets `invalid_scope`, as for an unknown scope.
 */
function scopesFor(
  res: Response,
  request: Extract<AuthorizationRequest, { ok: true }>,
  role: string,
): string[] | undefined {
  const scopes = grantableScopes(role, request.scopes)
  if (scopes.length) return scopes
  answerBadRequest(res, refusal(request.redirectUri, request.fields.state, 'invalid_scope', INVALID_SCOPE))
  return undefined
}

/** RFC 6749 §4.1.2.1: a bad client or redirect URI is shown on a page; anything else goes back to the client. */
async function readRequest(ctx: AccountsContext, p: Params): Promise<AuthorizationRequest> {
  const fields = Object.fromEntries(
    REQUEST_FIELDS.map((k) => [k, typeof p[k] === 'string' ? (p[k] as string) : undefined]),
  )
  const app = fields.client_id
    ? await ctx.db<ApplicationRow>('oauth_applications').where({ client_id: fields.client_id }).first()
    : undefined
  if (!app) return { ok: false, page: 'Client authentication failed due to unknown client.' }
  const redirectUri = fields.redirect_uri ?? ''
  if (!redirectUris(app).includes(redirectUri))
    return { ok: false, page: 'The redirect URI included is not valid.' }
  const fail = (error: string, description: string) => refusal(redirectUri, fields.state, error, description)
  if (fields.response_type !== 'code')
    return fail('unsupported_response_type', 'The authorization server does not support this response type.')
  const scopes = fields.scope?.trim() ? parseScopes(fields.scope) : ['read']
  if (!scopes || !isSubset(scopes, app.scopes.split(' '))) return fail('invalid_scope', INVALID_SCOPE)
  if (fields.code_challenge && fields.code_challenge_method !== 'S256')
    return fail('invalid_request', 'Only the S256 code challenge method is supported.')
  if (fields.code_challenge && !/^[\w-]{43,128}$/.test(fields.code_challenge))
    return fail('invalid_request', 'The code challenge is malformed.')
  return { ok: true, app, redirectUri, scopes, fields }
}

function answerBadRequest(res: Response, request: Exclude<AuthorizationRequest, { ok: true }>) {
  if ('redirect' in request) return res.redirect(302, request.redirect)
  res.status(400).type('html').send(errorPage(request.page))
}

/**
 * CSP `form-action` sources for the pages' forms. Browsers apply it to the redirect that answers a form too, so
 * it must admit the client's redirect URI, or approving and denying could never reach the client.
 */
function formTargets(redirectUri: string): string {
  if (redirectUri === OOB_REDIRECT_URI) return "'self'"
  const url = new URL(redirectUri)
  return `'self' ${url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol}`
}

async function renderForSession(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  request: Extract<AuthorizationRequest, { ok: true }>,
  error?: string,
) {
  const secret = ctx.config.SESSION_SECRET
  const user = await sessionUser(ctx, req)
  res.set({
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${formTargets(request.redirectUri)}`,
  })
  if (!user) {
    return res
      .status(error ? 401 : 200)
      .type('html')
      .send(
        signInPage({
          appName: request.app.name,
          fields: request.fields,
          csrf: csrfToken(req, res, secret, ctx.config.PUBLIC_URL.startsWith('https:')),
          error,
        }),
      )
  }
  if (mustEnrol(ctx, user)) return enrolFirst(res, request)
  const scopes = scopesFor(res, request, user.role)
  if (!scopes) return
  res.type('html').send(
    consentPage({
      appName: request.app.name,
      username: user.username,
      scopes,
      fields: request.fields,
      csrf: csrfToken(req, res, secret, ctx.config.PUBLIC_URL.startsWith('https:')),
    }),
  )
}

/** GET /oauth/authorize — the sign-in page, or the consent page when signed in. */
export async function showAuthorization(ctx: AccountsContext, req: Request, res: Response) {
  const request = await readRequest(ctx, readParams(req, showAuthorizationParams))
  if (!request.ok) return answerBadRequest(res, request)
  await renderForSession(ctx, req, res, request)
}

/** POST /oauth/authorize — sign in, or approve / deny. */
export async function decideAuthorization(ctx: AccountsContext, req: Request, res: Response) {
  const p = readParams(req, decideAuthorizationParams)
  const request = await readRequest(ctx, p)
  if (!request.ok) return answerBadRequest(res, request)
  const secret = ctx.config.SESSION_SECRET
  if (!validCsrf(req, secret, p.csrf_token))
    return res.status(403).type('html').send(errorPage('The form has expired. Go back and try again.'))

  if (p.action === 'sign_in' || p.action === 'two_factor') {
    const outcome =
      p.action === 'sign_in'
        ? await passwordStep(ctx, req, res, p.email, p.password)
        : await secondFactorStep(ctx, req, res, { code: p.code, credential: p.credential })
    return answerStep(ctx, req, res, request, outcome, p.action)
  }

  const user = await sessionUser(ctx, req)
  if (!user) return renderForSession(ctx, req, res, request)
  if (p.action !== 'approve') {
    if (request.redirectUri === OOB_REDIRECT_URI)
      return res.type('html').send(errorPage('The authorization was denied.'))
    return res.redirect(
      302,
      redirectWith(request.redirectUri, {
        error: 'access_denied',
        error_description: 'The resource owner or authorization server denied the request.',
        state: request.fields.state,
      }),
    )
  }
  if (mustEnrol(ctx, user)) return enrolFirst(res, request)
  const scopes = scopesFor(res, request, user.role)
  if (!scopes) return
  const code = randomBytes(32).toString('base64url')
  await ctx.db('oauth_access_grants').insert({
    application_id: request.app.id,
    user_id: user.id,
    code_digest: codeDigest(code),
    redirect_uri: request.redirectUri,
    scopes: scopes.join(' '),
    code_challenge: request.fields.code_challenge ?? null,
    expires_at: new Date(Date.now() + CODE_LIFETIME_MS),
  })
  if (request.redirectUri === OOB_REDIRECT_URI) return res.type('html').send(codePage(code))
  res.redirect(302, redirectWith(request.redirectUri, { code, state: request.fields.state }))
}

/** The page after a sign-in step: the consent page (by redirect), the second step, or the step again with its error. */
async function answerStep(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  request: Extract<AuthorizationRequest, { ok: true }>,
  outcome: StepOutcome,
  step: 'sign_in' | 'two_factor',
) {
  switch (outcome.kind) {
    case 'throttled':
      return res
        .status(429)
        .type('html')
        .send(errorPage('Too many failed sign-in attempts. Try again later.'))
    case 'signed_in':
      return res.redirect(303, `/oauth/authorize?${requestQuery(request)}`)
    case 'expired':
      return renderForSession(ctx, req, res, request, 'The sign-in has expired. Sign in again.')
    case 'wrong':
      if (step === 'sign_in') return renderForSession(ctx, req, res, request, outcome.error)
      return showSecondStep(ctx, req, res, request, 401, outcome.error)
    case 'second_factor':
      return showSecondStep(ctx, req, res, request, 200, undefined, outcome.keyOptions)
  }
}

async function showSecondStep(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  request: Extract<AuthorizationRequest, { ok: true }>,
  status: number,
  error?: string,
  keyOptions?: unknown,
) {
  const secret = ctx.config.SESSION_SECRET
  const userId = pendingSignInUserId(req, secret)
  const options = keyOptions ?? (userId ? await secondFactorOptions(ctx, userId) : undefined)
  const nonce = randomBytes(16).toString('base64')
  res.set({
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; form-action ${formTargets(request.redirectUri)}`,
  })
  res
    .status(status)
    .type('html')
    .send(
      twoFactorPage({
        action: '/oauth/authorize',
        fields: request.fields,
        csrf: csrfToken(req, res, secret, ctx.config.PUBLIC_URL.startsWith('https:')),
        error,
        keyOptions: options,
        nonce,
      }),
    )
}
