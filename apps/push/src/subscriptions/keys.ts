import { createECDH } from 'node:crypto'

/** Decodes base64 or base64url, padded or not; undefined when the text is neither. */
export function decodeBase64(text: string): Buffer | undefined {
  const normal = text.trim().replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
  if (!/^[A-Za-z0-9+/]+$/.test(normal) || normal.length % 4 === 1) return undefined
  return Buffer.from(normal, 'base64')
}

// One long-lived key: deriving a secret with it proves a client key is a point on P-256.
const probe = createECDH('prime256v1')
probe.generateKeys()

/** A subscriber's `p256dh`: an uncompressed P-256 point (65 bytes, 0x04 first) that really lies on the curve. */
export function isP256PublicKey(text: string): boolean {
  const key = decodeBase64(text)
  if (!key || key.length !== 65 || key[0] !== 0x04) return false
  try {
    probe.computeSecret(key)
    return true
  } catch {
    return false
  }
}

/** A subscriber's `auth` secret: 16 bytes (RFC 8291 §3.2). */
export const isAuthSecret = (text: string) => decodeBase64(text)?.length === 16
