import type { Redis } from 'ioredis'
import { serviceUnavailable } from '@roost/service'

/**
 * Revoked token ids, kept in Redis so that every gateway and service refuses them at once.
 * The accounts service also keeps `revoked_at` on the token row, the durable record, and re-publishes it here
 * at start-up and whenever Redis has lost it. A marker key, written once the whole list is in, tells a complete
 * list from an empty one: without it (Redis restarted empty, or flushed) a token cannot be judged, so checks
 * answer 503 until accounts has republished the list (within a second; docs/security.md), instead of letting
 * revoked tokens work again.
 */
export class RevocationList {
  readonly key: string
  readonly completeKey: string
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}:revoked-tokens`
    this.completeKey = `${prefix}:revoked-tokens:complete`
  }

  /** Written by accounts after publishing every revoked token from Postgres. */
  async markComplete(): Promise<void> {
    await this.redis.set(this.completeKey, new Date().toISOString())
  }

  async isComplete(): Promise<boolean> {
    return (await this.redis.exists(this.completeKey)) === 1
  }

  async revoke(...tokenIds: string[]): Promise<void> {
    if (tokenIds.length) await this.redis.sadd(this.key, ...tokenIds)
  }

  async isRevoked(tokenId: string): Promise<boolean> {
    // A pipeline, not MULTI: the two keys may live in different Redis Cluster slots.
    const [member, complete] =
      (await this.redis.pipeline().sismember(this.key, tokenId).exists(this.completeKey).exec()) ?? []
    if (member?.[0] || complete?.[0]) throw member?.[0] ?? complete?.[0]
    if (member?.[1] === 1) return true
    if (complete?.[1] !== 1) throw serviceUnavailable()
    return false
  }

  /** Which of `tokenIds` are revoked, in one round trip (the streaming service checks its open streams so). */
  async revokedAmong(tokenIds: string[]): Promise<Set<string>> {
    if (!tokenIds.length) return new Set()
    const flags = await this.redis.smismember(this.key, ...tokenIds)
    return new Set(tokenIds.filter((_, i) => flags[i] === 1))
  }
}
