import net from 'node:net'
import type { IncomingMessage } from 'node:http'
import { isSignedFact, signFact } from './signed-facts'

/**
 * The header in which the gateway hands the resolved client address to the services (apps/gateway/src/
 * client-address.ts), and the header that proves the gateway wrote it. The gateway always overwrites both, so a
 * client cannot choose them through it; a request sent straight to a service's port carries no valid signature,
 * so the service takes its socket peer instead (docs/security.md, "The client address").
 */
export const CLIENT_ADDRESS_HEADER = 'x-real-ip'
export const CLIENT_ADDRESS_SIGNATURE_HEADER = 'x-roost-address-signature'

/** How long a signature is accepted: covers clock skew between hosts, keeps a captured header short-lived. */
const SIGNATURE_LIFETIME_MS = 60_000

/** `<milliseconds>.<HMAC-SHA256(secret, "<milliseconds>\n<address>")>`, written by the gateway. */
export const signClientAddress = (secret: string, address: string, now = Date.now()) =>
  signFact(secret, address, now)

/** `::ffff:1.2.3.4` → `1.2.3.4`; undefined for anything that is not an IP address. */
export function plainAddress(address: string | undefined): string | undefined {
  const value = address?.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')
  return value && net.isIP(value) ? value.toLowerCase() : undefined
}

/**
 * The client's address as a service sees it: the gateway's address header when its signature is valid and
 * fresh, else the socket peer (a request that did not come through the gateway: health checks, tests, or an
 * attacker who reached the service's port and whose spoofed `X-Real-IP` is therefore ignored).
 */
export function trustedClientAddress(
  req: IncomingMessage,
  secret: string,
  now = Date.now(),
): string | undefined {
  const address = req.headers[CLIENT_ADDRESS_HEADER]
  const signature = req.headers[CLIENT_ADDRESS_SIGNATURE_HEADER]
  if (
    typeof address === 'string' &&
    plainAddress(address) === address &&
    isSignedFact(secret, signature, address, SIGNATURE_LIFETIME_MS, now)
  )
    return address
  return plainAddress(req.socket.remoteAddress)
}

/**
 * The subject an IP rate limit or throttle counts against: the address itself for IPv4, its /64 for IPv6 (one
 * customer usually holds a whole /64, so counting single IPv6 addresses would give an attacker 2^64 budgets; as
 * Mastodon's Rack::Attack counts). Used by the gateway's rate limits and the accounts service's sign-in
 * throttle (docs/security.md, "Credential guessing").
 */
export function rateLimitSubject(address: string): string {
  const plain = plainAddress(address) ?? address
  if (!net.isIPv6(plain)) return plain
  return `${expandIpv6(plain).slice(0, 4).join(':')}::/64`
}

/** The eight 4-digit groups of an IPv6 address, an embedded dotted IPv4 tail (`64:ff9b::1.2.3.4`) included. */
function expandIpv6(address: string): string[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address)
  const hex = dotted
    ? address.slice(0, dotted.index) +
      [0, 2].map((i) => ((Number(dotted[i + 1]) << 8) | Number(dotted[i + 2])).toString(16)).join(':')
    : address
  const [head = '', tail] = hex.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const missing = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0')
  return [...left, ...missing, ...right].map((g) => g.padStart(4, '0'))
}
