import net from 'node:net'
import type { IncomingMessage } from 'node:http'

/** `::ffff:1.2.3.4` (an IPv4 peer on a dual-stack socket) → `1.2.3.4`, so one rule matches both spellings. */
export function normalizeAddress(address: string): string | undefined {
  const trimmed = address.trim()
  const mapped = trimmed.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i)
  const plain = mapped ? mapped[1]! : trimmed
  return net.isIP(plain) ? plain.toLowerCase() : undefined
}

export const familyOf = (address: string): 'ipv4' | 'ipv6' => (net.isIPv4(address) ? 'ipv4' : 'ipv6')

/** `10.0.0.0/8`, `2001:db8::/32` or a bare address; undefined when malformed. */
export function parseCidr(
  cidr: string,
): { network: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', bits, extra] = cidr.trim().split('/')
  const network = normalizeAddress(address)
  if (!network || extra !== undefined) return undefined
  const family = familyOf(network)
  const max = family === 'ipv4' ? 32 : 128
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN
  if (!(prefix >= 0 && prefix <= max)) return undefined
  return { network, prefix, family }
}

/** A set of CIDRs, IPv4 and IPv6, matched with node's BlockList. */
export function addressSet(cidrs: readonly string[]): net.BlockList {
  const set = new net.BlockList()
  for (const cidr of cidrs) {
    const parsed = parseCidr(cidr)
    if (!parsed) throw new Error(`Not an IP address or CIDR: ${cidr}`)
    set.addSubnet(parsed.network, parsed.prefix, parsed.family)
  }
  return set
}

export const contains = (set: net.BlockList, address: string) => set.check(address, familyOf(address))

/**
 * Resolves the client's address. The socket peer is the client unless it is a trusted proxy; then
 * `X-Forwarded-For` is walked from the right (each proxy appends the address it saw) skipping trusted hops,
 * and the first untrusted hop is the client. Entries left of it were written by the client and may be forged,
 * so they are never read. With no trusted proxies configured, `X-Forwarded-For` is ignored entirely.
 */
export function createClientAddressResolver(trustedProxies: readonly string[]) {
  const trusted = addressSet(trustedProxies)
  return function clientAddress(req: IncomingMessage): string {
    let client = normalizeAddress(req.socket.remoteAddress ?? '') ?? '0.0.0.0'
    if (!trustedProxies.length) return client
    const header = req.headers['x-forwarded-for']
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')
    while (contains(trusted, client)) {
      const hop = hops.pop()
      if (hop === undefined) break
      const address = normalizeAddress(hop)
      if (!address) break // a malformed hop: stop at the last address a trusted proxy vouched for
      client = address
    }
    return client
  }
}
