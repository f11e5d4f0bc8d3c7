import type net from 'node:net'
import type { Redis } from 'ioredis'
import { IpRuleSet } from '@roost/auth'
import type { PublishedIpRule } from '@roost/auth'
import type { Logger } from '@roost/service'
import { addressSet, contains, parseCidr } from './client-address'

/** How stale the gateway's copy of the rules may be: a new or deleted rule takes effect within this time. */
export const IP_RULES_MAX_AGE_MS = 1000

/** Undefined where no rule has the severity, the usual case: no address is parsed for an empty list. */
interface Matchers {
  noAccess?: net.BlockList
  signUpBlock?: net.BlockList
}

/**
 * The IP rules as the gateway enforces them. The accounts service owns the rules and publishes the active ones
 * to Redis (`IpRuleSet`); the gateway keeps a copy in memory for at most a second, reloaded by whichever
 * request finds it stale. Why not read Redis per request: the rules change rarely and every request needs
 * them, so one GET per second per replica instead of one per request, for a delay of at most a second.
 * Expiry is applied at each reload, so an expired rule stops applying within a second too.
 * If Redis does not answer, the last copy stays in force (the rules fail neither open nor closed abruptly).
 */
export function createIpRules(redis: Redis, prefix: string, logger: Logger) {
  const source = new IpRuleSet(redis, prefix)
  let matchers: Matchers = build([], Date.now())
  let loadedAt = 0
  let loading: Promise<void> | undefined

  async function reload() {
    try {
      matchers = build(await source.load(), Date.now())
    } catch (err) {
      logger.error({ err }, 'could not load the IP rules; keeping the previous ones')
    }
    loadedAt = Date.now()
  }

  async function current(): Promise<Matchers> {
    if (Date.now() - loadedAt >= IP_RULES_MAX_AGE_MS)
      await (loading ??= reload().finally(() => (loading = undefined)))
    return matchers
  }

  return {
    /** `no_access`: the address may not use the server at all. */
    isDenied: async (address: string) => has((await current()).noAccess, address),
    /** `sign_up_block` (or `no_access`): the address may not sign up. */
    isSignUpBlocked: async (address: string) => {
      const m = await current()
      return has(m.signUpBlock, address) || has(m.noAccess, address)
    },
  }
}

const has = (set: net.BlockList | undefined, address: string) => !!set && contains(set, address)

function build(rules: PublishedIpRule[], now: number): Matchers {
  const active = rules.filter((r) => (!r.expiresAt || Date.parse(r.expiresAt) > now) && parseCidr(r.ip))
  const of = (severity: PublishedIpRule['severity']) => {
    const cidrs = active.filter((r) => r.severity === severity).map((r) => r.ip)
    return cidrs.length ? addressSet(cidrs) : undefined
  }
  return { noAccess: of('no_access'), signUpBlock: of('sign_up_block') }
}
