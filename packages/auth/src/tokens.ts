import { jwtVerify, errors } from 'jose'
import type { JWTVerifyGetKey } from 'jose'
import { HttpError } from '@roost/service'
import type { RevocationList } from './revocation'

/** The claims of a Roost access token (shared design.md, "Tokens"). */
export interface AccessToken {
  /** The token row's id (`jti`). */
  tokenId: string
  /** The user's id (`sub`); absent for app tokens from the client_credentials grant. */
  userId?: string
  clientId: string
  scopes: string[]
  /** The bearer string itself, for services that must hand it on (the push payload carries it). */
  raw: string
}

export const SIGNING_ALGORITHM = 'ES256'

export type Verification = { ok: true; token: AccessToken } | { ok: false; reason: 'invalid' | 'revoked' }

/**
 * Verifies a bearer token: signature by one of the issuer's keys (ES256 only, so `alg: none`, HMAC and foreign
 * keys all fail), issuer, and the revocation list.
 */
export function createTokenVerifier(options: {
  issuer: string
  keys: JWTVerifyGetKey
  revocations: RevocationList
}) {
  return async function verify(raw: string): Promise<Verification> {
    let payload
    try {
      ;({ payload } = await jwtVerify(raw, options.keys, {
        issuer: options.issuer,
        algorithms: [SIGNING_ALGORITHM],
      }))
    } catch (err) {
      // The key set could not be fetched: the server's problem, not the client's token.
      if (err instanceof errors.JWKSTimeout || !(err instanceof errors.JOSEError))
        throw new HttpError(503, 'There was a temporary problem serving your request, please try again')
      return { ok: false, reason: 'invalid' }
    }
    const { jti, sub, scope, client_id: clientId } = payload as Record<string, unknown>
    if (typeof jti !== 'string' || typeof scope !== 'string' || typeof clientId !== 'string')
      return { ok: false, reason: 'invalid' }
    if (await options.revocations.isRevoked(jti)) return { ok: false, reason: 'revoked' }
    return {
      ok: true,
      token: {
        tokenId: jti,
        userId: typeof sub === 'string' ? sub : undefined,
        clientId,
        scopes: scope.split(' ').filter(Boolean),
        raw,
      },
    }
  }
}

export type TokenVerifier = ReturnType<typeof createTokenVerifier>

/** The bearer token of a request: `Authorization: Bearer …` (case-insensitive), as Doorkeeper reads it first. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i)
  return match?.[1]
}

/** The `iss` of Roost's tokens and of its authorization server metadata: the public URL with one trailing slash. */
export const issuerOf = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/`
