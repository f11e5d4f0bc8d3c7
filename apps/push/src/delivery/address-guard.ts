import { lookup } from 'node:dns/promises'
import net, { BlockList } from 'node:net'

/** Addresses a push request must never reach (Mastodon's PrivateAddressCheck, docs/mastodon-compatibility.md, "Web Push"). */
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
  '::/128',
  '::1/128',
  '64:ff9b::/96',
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

/** `::ffff:10.0.0.1` is 10.0.0.1: checked as IPv4 so the mapping cannot hide a private address. */
const unwrapMapped = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1')

/**
 * Resolves a push endpoint's host and refuses it when any address is private, loopback, link-local or special,
 * unless allowed by configuration. The caller connects to the returned address, so a second DNS answer cannot
 * swap in another one (DNS rebinding).
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

  const isRefused = (raw: string) => {
    const address = unwrapMapped(raw)
    const type = net.isIPv6(address) ? 'ipv6' : 'ipv4'
    return special.check(address, type) && !allowed.check(address, type)
  }

  return async function resolve(hostname: string): Promise<{ address: string; family: 4 | 6 }> {
    const host = hostname.replace(/^\[|\]$/g, '')
    const addresses = net.isIP(host)
      ? [{ address: host, family: net.isIP(host) as 4 | 6 }]
      : ((await lookup(host, { all: true })) as { address: string; family: 4 | 6 }[])
    const refused = addresses.find((a) => isRefused(a.address))
    if (refused)
      throw new PrivateAddressError(`${hostname} resolves to a private address (${refused.address})`)
    if (!addresses[0]) throw new Error(`${hostname} has no address`)
    return addresses[0]
  }
}
export type AddressGuard = ReturnType<typeof createAddressGuard>
