import { exportJWK, generateKeyPair, createLocalJWKSet, jwtVerify, SignJWT } from 'jose'
import { createTokenVerifier } from '@roost/auth'
import type { RevocationList } from '@roost/auth'

/**
 * Token checks per second: Roost's verifier (signature checked once per token, then remembered; revocation
 * still looked up on every call — here against an in-memory list, so only the signature work differs) against
 * a full ES256 verification on every request.
 */
export async function benchTokens(count: number) {
  const { publicKey, privateKey } = await generateKeyPair('ES256')
  const keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] })
  const token = await new SignJWT({ jti: '1', scope: 'read', client_id: 'c', sub: '2' })
    .setProtectedHeader({ alg: 'ES256', kid: 'k' })
    .setIssuer('https://bench/')
    .sign(privateKey)
  const revocations = { isRevoked: async () => false } as unknown as RevocationList
  const verify = createTokenVerifier({ issuer: 'https://bench/', keys, revocations })

  const time = async (check: () => Promise<unknown>) => {
    const started = performance.now()
    for (let i = 0; i < count; i++) await check()
    return Math.round(count / ((performance.now() - started) / 1000))
  }
  const everyTime = await time(() =>
    jwtVerify(token, keys, { issuer: 'https://bench/', algorithms: ['ES256'] }),
  )
  const roost = await time(() => verify(token))
  return { everyTime, roost }
}
