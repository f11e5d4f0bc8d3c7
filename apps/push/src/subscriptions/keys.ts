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

/**
 * Keys already proven to lie on the curve. The push worker checks a subscription's key before each push, and the
 * proof (a key agreement, about 0.13 CPU-ms, half the cost of encrypting the push itself) need not be made again
 * for a key it has seen. Bounded: emptied when full.
 */
const proven = new Set<string>()
const PROVEN_LIMIT = 10_000

/** A subscriber's `p256dh`: an uncompressed P-256 point (65 bytes, 0x04 first) that really lies on the curve. */
export function isP256PublicKey(text: string): boolean {
  if (proven.has(text)) return true
  const key = decodeBase64(text)
  if (!key || key.length !== 65 || key[0] !== 0x04) return false
  try {
    probe.computeSecret(key)
  } catch {
    return false
  }
  if (proven.size >= PROVEN_LIMIT) proven.clear()
  proven.add(text)
  return true
}

/** A subscriber's `auth` secret: 16 bytes (RFC 8291 §3.2). */
export const isAuthSecret = (text: string) => decodeBase64(text)?.length === 16
