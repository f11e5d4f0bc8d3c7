import type { IncomingMessage } from 'node:http'
import { HttpError, invalidToken, outsideScopes } from '@roost/service'
import { permits } from './scopes'
import type { Scope } from './scopes'
import type { AccessToken, TokenVerifier } from './tokens'
import { bearerToken, streamingToken } from './tokens'
import { TOKEN_CHECKED_HEADER } from './token-checked'

declare module 'express-serve-static-core' {
  interface Request {
    /** The verified access token, or undefined on a public route called without one. */
    token?: AccessToken
  }
}

export const revokedToken = () =>
  new HttpError(
    401,
    'The access token was revoked',
    {},
    {
      'WWW-Authenticate':
        'Bearer realm="Roost", error="invalid_token", error_description="The access token was revoked"',
    },
  )

/**
 * How a route treats the bearer token:
 * - `none`: never read (the OAuth endpoints authenticate clients their own way; static and discovery documents);
 * - `optional`: public, but a presented token must be valid and hold one of `scopes` (Mastodon's
 *   `authorize_if_got_token!`); an unknown token reads as none, a revoked one is refused;
 * - `required`: a valid token holding one of `scopes`; an empty `scopes` accepts any valid token;
 * - `stream`: a streaming connection (docs/streaming.md): the token may also come from the `access_token`
 *   parameter or the WebSocket sub-protocol, and the streaming service checks it and the scopes of each stream
 *   itself, answering with the streaming server's own error texts. Here a valid token is only noted (the
 *   gateway counts rate limits by it); a missing or bad one is left for the service to refuse.
 */
export type Access = 'none' | 'optional' | 'required' | 'stream'

export interface AccessRule {
  access: Access
  /** Accepted scopes, any one of which suffices (each also granted by its parents). */
  scopes: readonly Scope[]
}

/**
 * Checks a request against its route's access rule: verifies the token (signature, issuer, revocation) and
 * the route's scopes. Used by the gateway and again by each service, which never trusts the gateway blindly: it
 * takes the gateway's word only on the revocation look-up, and only when signed (`TOKEN_CHECKED_HEADER`).
 */
export async function authenticate(
  route: AccessRule,
  req: Pick<IncomingMessage, 'headers' | 'url'>,
  verify: TokenVerifier,
): Promise<AccessToken | undefined> {
  if (route.access === 'none') return undefined
  if (route.access === 'stream') {
    const raw = streamingToken(req)
    const result = raw ? await verify(raw, req.headers[TOKEN_CHECKED_HEADER]) : undefined
    return result?.ok ? result.token : undefined
  }
  const raw = bearerToken(req.headers.authorization)
  if (!raw) {
    if (route.access === 'required') throw invalidToken()
    return undefined
  }
  const result = await verify(raw, req.headers[TOKEN_CHECKED_HEADER])
  if (!result.ok) {
    if (result.reason === 'revoked') throw revokedToken()
    if (route.access === 'required') throw invalidToken()
    return undefined // Mastodon treats an unknown token on a public endpoint as no token
  }
  if (route.scopes.length && !permits(result.token.scopes, route.scopes)) throw outsideScopes()
  return result.token
}

/**
 * The token a request presents to its route, if any, as `authenticate` reads it (none on `none` routes; the
 * streaming places on `stream` routes; the bearer header elsewhere). Nothing is verified.
 */
export function presentedToken(
  route: AccessRule,
  req: Pick<IncomingMessage, 'headers' | 'url'>,
): string | undefined {
  if (route.access === 'none') return undefined
  return route.access === 'stream' ? streamingToken(req) : bearerToken(req.headers.authorization)
}
