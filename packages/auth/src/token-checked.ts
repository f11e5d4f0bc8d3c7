import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * The header in which the gateway tells a service that it has checked the request's token against the revocation
 * list: `<milliseconds>.<HMAC-SHA256(GATEWAY_SECRET, "token-checked\n<milliseconds>\n<token id>")>`. A service that
 * finds it valid, fresh and naming the token it verified skips its own look-up of the list, one Redis round trip
 * per request; without it (a request sent straight to the service, an old or foreign header) the service checks
 * the list itself. It still verifies the token's signature and scopes itself (docs/security.md, "Tokens the
 * gateway checked").
 */
export const TOKEN_CHECKED_HEADER = 'x-roost-token-checked'

/**
 * How long the gateway's word holds. Short, because a revocation made after the gateway's look-up is not in it:
 * someone who captured a header and its token could replay both straight to a service for this long. Hosts
 * whose clocks differ by more fall back to checking the list themselves, which is slower but never wrong.
 */
export const TOKEN_CHECKED_LIFETIME_MS = 5_000

// The prefix keeps this MAC apart from the client address's (`<milliseconds>\n<address>`), made with the same secret.
const mac = (secret: string, tokenId: string, issuedAt: number) =>
  createHmac('sha256', secret).update(`token-checked\n${issuedAt}\n${tokenId}`).digest('base64url')

/** The header's value for a token the gateway has just checked. */
export function signTokenChecked(secret: string, tokenId: string, now = Date.now()): string {
  return `${now}.${mac(secret, tokenId, now)}`
}

/** Whether `header` is the gateway's fresh word that it checked the token `tokenId`. */
export function isTokenChecked(
  secret: string,
  header: string | string[] | undefined,
  tokenId: string,
  now = Date.now(),
): boolean {
  if (typeof header !== 'string') return false
  const [issued = '', given = ''] = header.split('.')
  const issuedAt = Number(issued)
  if (!/^\d{1,15}$/.test(issued) || Math.abs(now - issuedAt) > TOKEN_CHECKED_LIFETIME_MS) return false
  const expected = Buffer.from(mac(secret, tokenId, issuedAt))
  const actual = Buffer.from(given)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
