import { signClientAddress, signTokenChecked } from '@roost/auth'

/**
 * The facts the gateway signs for the services with GATEWAY_SECRET (docs/security.md): the client address it
 * resolved, and that it checked a token against the revocation list. Each signature is made once per subject and
 * second instead of once per request: a signature made within the last second is as good as a new one to the
 * services, which accept an address's for a minute and a token's for five seconds.
 */
export function createHeaderSigners(secret: string) {
  return {
    address: oncePerSecond((address, now) => signClientAddress(secret, address, now)),
    tokenChecked: oncePerSecond((tokenId, now) => signTokenChecked(secret, tokenId, now)),
  }
}

function oncePerSecond(sign: (subject: string, now: number) => string): (subject: string) => string {
  let second = 0
  let signed = new Map<string, string>()
  return (subject) => {
    const now = Date.now()
    if (Math.floor(now / 1000) !== second) {
      second = Math.floor(now / 1000)
      signed = new Map()
    }
    let signature = signed.get(subject)
    if (!signature) signed.set(subject, (signature = sign(subject, now)))
    return signature
  }
}
