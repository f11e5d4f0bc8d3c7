import { createECDH } from 'node:crypto'
import { isAuthSecret, isP256PublicKey } from './keys'

/** A subscriber's keys (apps/push/src/subscriptions/keys.ts): a key once proven is remembered, a refusal is not. */
describe('subscription keys', () => {
  const onCurve = () => {
    const ecdh = createECDH('prime256v1')
    ecdh.generateKeys()
    return ecdh.getPublicKey().toString('base64url')
  }

  it('takes a point on P-256, every time it is asked', () => {
    const key = onCurve()
    expect(isP256PublicKey(key)).toBe(true)
    expect(isP256PublicKey(key)).toBe(true)
  })

  it('refuses a 65-byte uncompressed point that is not on the curve, every time it is asked', () => {
    const offCurve = Buffer.alloc(65, 4).toString('base64')
    expect(isP256PublicKey(offCurve)).toBe(false)
    expect(isP256PublicKey(offCurve)).toBe(false)
  })

  it('refuses a compressed point, a short key and text that is not base64', () => {
    const ecdh = createECDH('prime256v1')
    ecdh.generateKeys()
    expect(isP256PublicKey(ecdh.getPublicKey('base64', 'compressed'))).toBe(false)
    expect(isP256PublicKey(Buffer.alloc(64, 4).toString('base64'))).toBe(false)
    expect(isP256PublicKey('not base64!')).toBe(false)
  })

  it('takes a 16-byte auth secret only', () => {
    expect(isAuthSecret(Buffer.alloc(16, 1).toString('base64url'))).toBe(true)
    expect(isAuthSecret(Buffer.alloc(15, 1).toString('base64url'))).toBe(false)
  })
})
