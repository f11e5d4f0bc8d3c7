import { createLocalJWKSet, exportJWK, generateKeyPair, importJWK, SignJWT } from 'jose'
import type { JWK, KeyLike } from 'jose'
import { SIGNING_ALGORITHM } from '@roost/auth'

export interface SigningKeys {
  sign(claims: Record<string, unknown>): Promise<string>
  /** The public JSON Web Key Set served at /oauth/jwks. */
  jwks: { keys: JWK[] }
  /** For verifying tokens inside this service without a network round-trip. */
  localKeySet: ReturnType<typeof createLocalJWKSet>
}

/** Loads the configured private keys; the first one signs, every one stays in the published set. */
export async function loadSigningKeys(json: string, issuer: string): Promise<SigningKeys> {
  const privateJwks = JSON.parse(json) as JWK[]
  if (!Array.isArray(privateJwks) || !privateJwks.length || privateJwks.some((k) => !k.kid || !k.d))
    throw new Error('OAUTH_SIGNING_KEYS must be a JSON array of private JWKs, each with a kid')
  const publicJwks = privateJwks.map(({ d: _d, ...pub }) => ({ ...pub, alg: SIGNING_ALGORITHM, use: 'sig' }))
  const current = privateJwks[0]!
  const key = (await importJWK(current, SIGNING_ALGORITHM)) as KeyLike
  const jwks = { keys: publicJwks }
  return {
    jwks,
    localKeySet: createLocalJWKSet(jwks),
    sign: (claims) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: current.kid, typ: 'at+jwt' })
        .setIssuer(issuer)
        .setIssuedAt()
        .sign(key),
  }
}

/** A new ES256 key as a private JWK (development set-up and tests). */
export async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true })
  const jwk = await exportJWK(privateKey)
  return { ...jwk, kid: `roost-${Date.now().toString(36)}`, alg: SIGNING_ALGORITHM }
}
