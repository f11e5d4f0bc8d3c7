import type { IncomingHttpHeaders } from 'node:http'
import { jwtVerify, errors } from 'jose'
import type { JWTVerifyGetKey } from 'jose'
import { serviceUnavailable } from '@roost/service'
import type { RevocationList } from './revocation'
import { isTokenChecked } from './token-checked'

/** The claims of a Roost access token (docs/architecture.md, "Tokens"). */
export interface AccessToken {
  /** The token row's id (`jti`). */
  tokenId: string
  /** The user's id (`sub`); absent for app tokens from the client_credentials grant. */
  userId?: string
  /**
   * The user's account id (`account_id`), for services that read no database but address accounts (streaming's
   * channels are named by account); absent for app tokens.
   */
  accountId?: string
  clientId: string
  scopes: string[]
  /** The bearer string itself, for services that must hand it on (the push payload carries it). */
  raw: string
}

export const SIGNING_ALGORITHM = 'ES256'

export type Verification = { ok: true; token: AccessToken } | { ok: false; reason: 'invalid' | 'revoked' }

/** How many verified signatures each process remembers, and for how long (bounds a removed key's reach). */
const SIGNATURE_CACHE_SIZE = 10_000
const SIGNATURE_CACHE_MS = 5 * 60_000

/**
 * Verifies a bearer token: signature by one of the issuer's keys (ES256 only, so `alg: none`, HMAC and foreign
 * keys all fail), issuer, and the revocation list. A token's signature is checked once and remembered for a few
 * minutes (the ECDSA check is the costliest step of a request, and clients send the same token again and again);
 * revocation is asked of `revocations` on every call (the gateway's remembers Redis's answers for as long as Redis
 * promises to say when the list changes: `CachedRevocations`).
 */
export function createTokenVerifier(options: {
  issuer: string
  keys: JWTVerifyGetKey
  revocations: Pick<RevocationList, 'isRevoked'>
  /**
   * A service's copy of GATEWAY_SECRET: with it, a request the gateway marked as checked against the revocation
   * list (`TOKEN_CHECKED_HEADER`) is not looked up again. The gateway itself has none: it always looks.
   */
  gatewaySecret?: string
}) {
  const verified = new Map<string, { token: AccessToken; until: number }>()

  async function checkSignature(raw: string): Promise<AccessToken | undefined> {
    const cached = verified.get(raw)
    if (cached && cached.until > Date.now()) return cached.token
    let payload
    try {
      ;({ payload } = await jwtVerify(raw, options.keys, {
        issuer: options.issuer,
        algorithms: [SIGNING_ALGORITHM],
      }))
    } catch (err) {
      // The key set could not be fetched: the server's problem, not the client's token.
      if (err instanceof errors.JWKSTimeout || !(err instanceof errors.JOSEError)) throw serviceUnavailable()
      return undefined
    }
    const {
      jti,
      sub,
      scope,
      client_id: clientId,
      account_id: accountId,
      exp,
    } = payload as Record<string, unknown>
    if (typeof jti !== 'string' || typeof scope !== 'string' || typeof clientId !== 'string') return undefined
    const token = {
      tokenId: jti,
      userId: typeof sub === 'string' ? sub : undefined,
      accountId: typeof accountId === 'string' ? accountId : undefined,
      clientId,
      scopes: scope.split(' ').filter(Boolean),
      raw,
    }
    if (verified.size >= SIGNATURE_CACHE_SIZE) verified.delete(verified.keys().next().value!)
    const until = Math.min(Date.now() + SIGNATURE_CACHE_MS, typeof exp === 'number' ? exp * 1000 : Infinity)
    verified.set(raw, { token, until })
    return token
  }

  /** `checkedByGateway`: the request's `TOKEN_CHECKED_HEADER`, if any. */
  async function verify(raw: string, checkedByGateway?: string | string[]): Promise<Verification> {
    const token = await checkSignature(raw)
    if (!token) return { ok: false, reason: 'invalid' }
    const checked =
      !!options.gatewaySecret && isTokenChecked(options.gatewaySecret, checkedByGateway, token.tokenId)
    if (!checked && (await options.revocations.isRevoked(token.tokenId)))
      return { ok: false, reason: 'revoked' }
    return { ok: true, token }
  }
  /**
   * The token if its signature and issuer are good, revocation NOT checked: only for work that may start before
   * the full verdict and is redone without the token when the verdict refuses it (the gateway's rate limits).
   */
  return Object.assign(verify, { signatureOnly: checkSignature })
}

export type TokenVerifier = ReturnType<typeof createTokenVerifier>

/** The bearer token of a request: `Authorization: Bearer …` (case-insensitive), as Doorkeeper reads it first. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i)
  return match?.[1]
}

/** The `iss` of Roost's tokens and of its authorization server metadata: the public URL with one trailing slash. */
export const issuerOf = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/`

/**
 * The token of a streaming request, where Mastodon's streaming server looks for it: `Authorization: Bearer …`,
 * then the `access_token` query parameter, then the `Sec-WebSocket-Protocol` header taken whole (browsers cannot
 * set headers on a WebSocket, so masto.js and the web app send the token as the sub-protocol).
 */
export function streamingToken(req: { headers: IncomingHttpHeaders; url?: string }): string | undefined {
  const bearer = bearerToken(req.headers.authorization)
  if (bearer) return bearer
  const query = new URL(req.url ?? '/', 'http://streaming.invalid').searchParams.get('access_token')
  if (query) return query
  const protocol = req.headers['sec-websocket-protocol']
  return typeof protocol === 'string' && protocol.trim() ? protocol.trim() : undefined
}
