import { lookup as dnsLookup } from 'node:dns/promises'
import net, { BlockList } from 'node:net'
import type { LookupFunction } from 'node:net'

/**
 * Addresses an outgoing request (push delivery, federation) must never reach: Mastodon's PrivateAddressCheck
 * (docs/mastodon-compatibility.md, "Web Push"; docs/federation.md, "Outgoing requests"). */
const SPECIAL_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
  '255.255.255.255/32',
]
const SPECIAL_V6 = [
  // ::/96 (IPv4-compatible), ::ffff:0:0/96 (mapped) and ::ffff:0:0:0/96 (SIIT) are refused by embeddedIpv4, not
  // here: node's BlockList matches IPv4 addresses against IPv4-mapped IPv6 rules, so they would refuse every IPv4.
  '::/128',
  '::1/128',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/32',
  '2001:10::/28',
  '2001:db8::/32',
  '2002::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
]

function addSubnet(list: BlockList, cidr: string) {
  const [address, bits] = cidr.split('/')
  const type = net.isIPv6(address!) ? 'ipv6' : 'ipv4'
  if (!net.isIP(address!)) throw new Error(`Not a CIDR: ${cidr}`)
  list.addSubnet(address!, Number(bits ?? (type === 'ipv6' ? 128 : 32)), type)
}

export class PrivateAddressError extends Error {}

/** An IPv6 address as its eight 16-bit groups, whatever its spelling (`::`, a dotted IPv4 tail, zone ids). */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '')
  const dotted = text.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/)
  if (dotted) {
    const bytes = dotted[2]!.split('.').map(Number)
    text = `${dotted[1]}${((bytes[0]! << 8) | bytes[1]!).toString(16)}:${((bytes[2]! << 8) | bytes[3]!).toString(16)}`
  }
  const [head = '', tail, extra] = text.split('::')
  if (extra !== undefined) return undefined
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const missing = tail === undefined ? 0 : 8 - left.length - right.length
  if (missing < 0) return undefined
  const groups = [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => parseInt(g, 16))
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined
}

/**
 * The IPv4 address an IPv6 spelling carries, for the forms that reach an IPv4 host: IPv4-mapped
 * (`::ffff:a.b.c.d`, also written `::ffff:a9fe:a9fe`), IPv4-compatible (`::a.b.c.d`, `::a9fe:a9fe`), SIIT
 * (`::ffff:0:a.b.c.d`) and NAT64 (`64:ff9b::a.b.c.d`). Checked as IPv4, so no spelling hides a private address.
 */
export function embeddedIpv4(address: string): string | undefined {
  if (!net.isIPv6(address)) return undefined
  const g = ipv6Groups(address)
  if (!g) return undefined
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  const carries =
    (zero(0, 5) && g[5] === 0xffff) || // mapped
    (zero(0, 6) && (g[6] !== 0 || g[7]! > 1)) || // compatible (not :: or ::1)
    (zero(0, 4) && g[4] === 0xffff && g[5] === 0) || // SIIT
    (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) // NAT64
  if (!carries) return undefined
  return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join('.')
}

/**
 * Resolves a host (a push endpoint's, a peer's) and refuses it when any address is private, loopback, link-local or special,
 * unless allowed by configuration. The caller connects to the returned address, so a second DNS answer cannot
 * swap in another one (DNS rebinding).
 *
 * A request uses it through `vetLiteral` and `lookup`, so that a host name is resolved when a connection to it is
 * opened and not for each request: one on a kept-alive connection makes no DNS query (a push service's host, asked
 * before every push, was one `getaddrinfo` on libuv's four threads per push).
 */
export function createAddressGuard(allowedCidrs: string) {
  const special = new BlockList()
  SPECIAL_V4.forEach((cidr) => addSubnet(special, cidr))
  SPECIAL_V6.forEach((cidr) => addSubnet(special, cidr))
  const allowed = new BlockList()
  allowedCidrs
    .split(/[\s,]+/)
    .filter(Boolean)
    .forEach((cidr) => addSubnet(allowed, cidr))

  /**
   * Refused when special, unless allowed. An IPv6 form that carries an IPv4 address (embeddedIpv4) is refused
   * unless allowed, as itself or as the IPv4 address it carries: such spellings have no business in a push URL.
   */
  const isRefused = (address: string): boolean => {
    if (!net.isIP(address)) return true
    const v4 = embeddedIpv4(address)
    if (v4) return !allowed.check(address, 'ipv6') && !allowed.check(v4, 'ipv4')
    const type = net.isIPv6(address) ? 'ipv6' : 'ipv4'
    return special.check(address, type) && !allowed.check(address, type)
  }

  const unbracketed = (hostname: string) => hostname.replace(/^\[|\]$/g, '')

  async function resolve(hostname: string): Promise<{ address: string; family: 4 | 6 }> {
    const host = unbracketed(hostname)
    const addresses = net.isIP(host)
      ? [{ address: host, family: net.isIP(host) as 4 | 6 }]
      : ((await dnsLookup(host, { all: true })) as { address: string; family: 4 | 6 }[])
    const refused = addresses.find((a) => isRefused(a.address))
    if (refused)
      throw new PrivateAddressError(`${hostname} resolves to a private address (${refused.address})`)
    if (!addresses[0]) throw new Error(`${hostname} has no address`)
    return addresses[0]
  }

  /**
   * The `lookup` of http(s).request: Node calls it when it opens a connection to a host name (`all` for its
   * happy-eyeballs connect), never for a request on a connection kept alive. Fails with PrivateAddressError.
   */
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname).then(
      (vetted) => (options?.all ? callback(null, [vetted]) : callback(null, vetted.address, vetted.family)),
      (err: unknown) => callback(err),
    )
  }) as unknown as LookupFunction

  /**
   * IP literals already let through. A literal's verdict depends on this guard's lists alone, which never change,
   * so each is vetted once and not before every push to it (docs/performance.md, "The push worker's own CPU,
   * taken apart"). Bounded: emptied when full.
   */
  const passedLiterals = new Set<string>()
  const PASSED_LITERALS_LIMIT = 1000

  /** Refuses a private IP literal before a request: Node connects to one without calling `lookup`. */
  async function vetLiteral(hostname: string): Promise<void> {
    if (passedLiterals.has(hostname) || !net.isIP(unbracketed(hostname))) return
    await resolve(hostname)
    if (passedLiterals.size >= PASSED_LITERALS_LIMIT) passedLiterals.clear()
    passedLiterals.add(hostname)
  }

  return Object.assign(resolve, { lookup, vetLiteral })
}
export type AddressGuard = ReturnType<typeof createAddressGuard>
