import type { Redis } from 'ioredis'

/** Mastodon's IP block severities, weakest first. */
export const IP_SEVERITIES = ['sign_up_requires_approval', 'sign_up_block', 'no_access'] as const
export type IpSeverity = (typeof IP_SEVERITIES)[number]

/** One active rule as the gateway sees it: a CIDR, what it does, and when it stops (ISO 8601) if ever. */
export interface PublishedIpRule {
  ip: string
  severity: IpSeverity
  expiresAt: string | null
}

/**
 * The active IP rules, shared through Redis: the accounts service owns them (table `ip_blocks`) and publishes
 * the whole set as one JSON value after every change and at start-up; gateways read it (apps/gateway/src/
 * ip-rules.ts). One value written with SET is replaced atomically, so a reader never sees half a set.
 */
export class IpRuleSet {
  private readonly key: string
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}:ip-rules`
  }

  async publish(rules: PublishedIpRule[]): Promise<void> {
    await this.redis.set(this.key, JSON.stringify(rules))
  }

  async load(): Promise<PublishedIpRule[]> {
    const value = await this.redis.get(this.key)
    return value ? (JSON.parse(value) as PublishedIpRule[]) : []
  }
}
