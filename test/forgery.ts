import {
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  SignJWT,
} from 'jose'
import type { JWK, KeyLike } from 'jose'

/**
 * Tokens an attacker could make from a real one (same claims) without Roost's private key: unsigned, HMAC
 * keyed with the published public key (key confusion), and signed by a key of their own, under Roost's kid or
 * another one.
 */
export async function forgedTokens(real: string, jwks: { keys: JWK[] }) {
  const claims = decodeJwt(real)
  const { kid } = decodeProtectedHeader(real)
  const publicJwk = jwks.keys.find((k) => k.kid === kid)!
  const publicPem = await exportSPKI((await importJWK(publicJwk, 'ES256')) as KeyLike)
  const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const hmac = (secret: string) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid }).sign(new TextEncoder().encode(secret))
  const { privateKey: stranger, publicKey: strangerPublic } = await generateKeyPair('ES256', {
    extractable: true,
  })
  const strangerSigned = (strangerKid: string) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: strangerKid, typ: 'at+jwt' }).sign(stranger)
  return {
    'alg none': `${b64url({ alg: 'none', kid })}.${b64url(claims)}.`,
    'HS256 keyed by the public JWK': await hmac(JSON.stringify(publicJwk)),
    'HS256 keyed by the public PEM': await hmac(publicPem),
    'an unknown key with the same kid': await strangerSigned(kid!),
    'an unknown key with another kid': await strangerSigned('attacker-key'),
    'a real token with its signature altered': `${real.slice(0, -4)}${real.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`,
    'an unknown key, its public JWK in the header': await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', jwk: await exportJWK(strangerPublic) })
      .sign(stranger),
  }
}
