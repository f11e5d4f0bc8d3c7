import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Facts the gateway vouches for to the services in a header (the client address, a token it looked up;
 * docs/security.md): `<milliseconds>.<HMAC-SHA256(GATEWAY_SECRET, "<milliseconds>\n<fact>")>`. Each kind of fact
 * has a shape the other kinds cannot take, so a signature of one is never read as another's.
 */
const mac = (secret: string, fact: string, issuedAt: number) =>
  createHmac('sha256', secret).update(`${issuedAt}\n${fact}`).digest('base64url')

export function signFact(secret: string, fact: string, now = Date.now()): string {
  return `${now}.${mac(secret, fact, now)}`
}

/** Whether `signature` vouches for `fact` and was made at most `lifetimeMs` from `now` (either way: clock skew). */
export function isSignedFact(
  secret: string,
  signature: string | string[] | undefined,
  fact: string,
  lifetimeMs: number,
  now = Date.now(),
): boolean {
  if (typeof signature !== 'string') return false
  const [issued = '', given = ''] = signature.split('.')
  const issuedAt = Number(issued)
  if (!/^\d{1,15}$/.test(issued) || Math.abs(now - issuedAt) > lifetimeMs) return false
  const expected = Buffer.from(mac(secret, fact, issuedAt))
  const actual = Buffer.from(given)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
