import type { Request, Response } from 'express'
import { ALL_SCOPES, issuerOf } from '@roost/auth'
import type { AccountsContext } from '../context'

/** GET /oauth/jwks — the public keys that verify Roost's access tokens. */
export function jwks(ctx: AccountsContext, _req: Request, res: Response) {
  res.set('Cache-Control', 'public, max-age=300')
  res.json(ctx.keys.jwks)
}

/** GET /.well-known/oauth-authorization-server (RFC 8414; Mastodon 4.3+ fields, docs/mastodon-compatibility.md, "OAuth"). */
export function authorizationServerMetadata(ctx: AccountsContext, _req: Request, res: Response) {
  const base = ctx.config.PUBLIC_URL.replace(/\/$/, '')
  res.set('Cache-Control', 'public, max-age=900')
  res.json({
    issuer: issuerOf(ctx.config.PUBLIC_URL),
    service_documentation: 'https://docs.joinmastodon.org/',
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    app_registration_endpoint: `${base}/api/v1/apps`,
    revocation_endpoint: `${base}/oauth/revoke`,
    jwks_uri: `${base}/oauth/jwks`,
    scopes_supported: ALL_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'fragment', 'form_post'],
    grant_types_supported: [
      'authorization_code',
      'client_credentials',
      ...(ctx.config.OAUTH_PASSWORD_GRANT ? ['password'] : []),
    ],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
  })
}
