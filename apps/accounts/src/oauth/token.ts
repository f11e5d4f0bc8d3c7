import { createHash } from 'node:crypto'
import type { Request, Response } from 'express'
import { isSubset, parseScopes } from '@roost/auth'
import { readParams, tokenParams } from '@roost/routes'
import { oauthError } from '@roost/service'
import type { AccountsContext } from '../context'
import { maySignIn } from '../users/login-state'
import { signInWithPassword } from '../users/sign-in'
import { grantableScopes } from './admin-scopes'
import { authenticateClient, clientCredentials } from './clients'
import { guardCredentials } from './throttle'
import { issueToken } from './tokens'

// RFC 6749 §5.2 codes with Doorkeeper's descriptions (docs/mastodon-compatibility.md, "OAuth").
const invalidClient = () =>
  oauthError(
    401,
    'invalid_client',
    'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  )
const invalidGrant = () =>
  oauthError(
    400,
    'invalid_grant',
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  )
const invalidScope = () =>
  oauthError(400, 'invalid_scope', 'The requested scope is invalid, unknown, or malformed.')
const unsupportedGrant = () =>
  oauthError(
    400,
    'unsupported_grant_type',
    'The authorization grant type is not supported by the authorization server.',
  )
const invalidRequest = (what: string) =>
  oauthError(
    400,
    'invalid_request',
    `The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed: ${what}.`,
  )

export const codeDigest = (code: string) => createHash('sha256').update(code).digest('hex')

/** PKCE S256 (RFC 7636 §4.6): BASE64URL(SHA256(code_verifier)) must equal the stored challenge. */
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url')

/** POST /oauth/token — grants client_credentials, authorization_code (with PKCE) and, when enabled, password. */
export async function token(ctx: AccountsContext, req: Request, res: Response) {
  const p = readParams(req, tokenParams)
  res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' })
  const grantType = p.grant_type
  if (typeof grantType !== 'string' || !grantType) throw invalidRequest('grant_type')
  const supported = [
    'client_credentials',
    'authorization_code',
    ...(ctx.config.OAUTH_PASSWORD_GRANT ? ['password'] : []),
  ]
  if (!supported.includes(grantType)) throw unsupportedGrant()

  // Credential guessing: a wrong client secret or password counts against the address, the client and the login.
  const login = grantType === 'password' && typeof p.username === 'string' ? p.username : undefined
  const { clientId } = clientCredentials(req, p)
  const throttle = await guardCredentials(ctx, req, res, [
    clientId && `client:${clientId}`,
    login && `login:${login}`,
  ])
  const app = await authenticateClient(ctx, req, p)
  if (!app) {
    await throttle.fail([clientId && `client:${clientId}`])
    throw invalidClient()
  }
  const appScopes = app.scopes.split(' ')

  const requestedScopes = () => {
    if (p.scope !== undefined && typeof p.scope !== 'string') throw invalidScope()
    const scopes = typeof p.scope === 'string' && p.scope.trim() ? parseScopes(p.scope) : ['read']
    if (!scopes || !isSubset(scopes, appScopes)) throw invalidScope()
    return scopes
  }

  if (grantType === 'client_credentials') {
    const scopes = requestedScopes()
    return res.json(
      await issueToken(ctx, { applicationId: app.id, clientId: app.client_id, userId: null, scopes }),
    )
  }

  if (grantType === 'password') {
    const scopes = requestedScopes()
    if (typeof p.username !== 'string' || typeof p.password !== 'string') throw invalidGrant()
    const user = await signInWithPassword(ctx, p.username, p.password)
    if (!user) {
      await throttle.fail([login && `login:${login}`])
      throw invalidGrant()
    }
    // A password alone does not open an account with two-factor sign-in (Mastodon's Doorkeeper config too).
    if (user.otp_enabled_at) throw invalidGrant()
    const granted = grantableScopes(user.role, scopes)
    if (!granted.length) throw invalidScope()
    return res.json(
      await issueToken(ctx, {
        applicationId: app.id,
        clientId: app.client_id,
        userId: user.id,
        scopes: granted,
      }),
    )
  }

  // authorization_code: the token gets exactly the grant's scopes, whatever `scope` says (Doorkeeper).
  if (typeof p.code !== 'string' || !p.code) throw invalidRequest('code')
  const result = await ctx.db.transaction(async (trx) => {
    const grant = await trx('oauth_access_grants')
      .where({ code_digest: codeDigest(p.code as string), application_id: app.id })
      .forUpdate()
      .first()
    if (!grant || grant.used_at || grant.expires_at < new Date()) return undefined
    if (typeof p.redirect_uri !== 'string' || p.redirect_uri !== grant.redirect_uri) return undefined
    if (grant.code_challenge) {
      if (typeof p.code_verifier !== 'string' || s256(p.code_verifier) !== grant.code_challenge)
        return undefined
    }
    // The user may have lost the admin role since approving (admin-scopes.ts).
    // …and may have been disabled or suspended since: no new token then (docs/security.md).
    const owner = await trx('users')
      .join('accounts', 'accounts.id', 'users.account_id')
      .where('users.id', grant.user_id)
      .first('users.role', 'users.disabled', 'users.approved', 'accounts.suspended_at')
    const scopes = owner && maySignIn(owner) ? grantableScopes(owner.role, grant.scopes.split(' ')) : []
    if (!scopes.length) return undefined
    await trx('oauth_access_grants').where({ id: grant.id }).update({ used_at: trx.fn.now() })
    return issueToken(
      ctx,
      {
        applicationId: app.id,
        clientId: app.client_id,
        userId: grant.user_id,
        scopes,
      },
      trx,
    )
  })
  if (!result) throw invalidGrant()
  res.json(result)
}
