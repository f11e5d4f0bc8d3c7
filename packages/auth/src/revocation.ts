import type { Redis } from 'ioredis'
import { serviceUnavailable } from '@roost/service'

/** The list's completeness marker: not a token id, which are decimal row ids. */
const COMPLETE_MARKER = 'complete'

/**
 * Revoked token ids, kept in Redis so that every gateway and service refuses them at once.
 * The accounts service also keeps `revoked_at` on the token row, the durable record, and re-publishes it here
 * at start-up and whenever Redis has lost it. A marker, added to the set once the whole list is in, tells a
 * complete list from an empty one: without it (Redis restarted empty, or flushed) a token cannot be judged, so
 * checks answer 503 until accounts has republished the list (within a second; docs/security.md), instead of
 * letting revoked tokens work again. The marker is a member of the set itself, so that the list and its marker
 * are lost together and one `SMISMEMBER` asks about both.
 */
export class RevocationList {
  readonly key: string
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}:revoked-tokens`
  }

  /** Written by accounts after publishing every revoked token from Postgres. */
  async markComplete(): Promise<void> {
    await this.redis.sadd(this.key, COMPLETE_MARKER)
  }

  async isComplete(): Promise<boolean> {
    return (await this.redis.sismember(this.key, COMPLETE_MARKER)) === 1
  }

  async revoke(...tokenIds: string[]): Promise<void> {
    if (tokenIds.length) await this.redis.sadd(this.key, ...tokenIds)
  }

  async isRevoked(tokenId: string): Promise<boolean> {
    const [revoked, complete] = await this.redis.smismember(this.key, tokenId, COMPLETE_MARKER)
    if (revoked === 1) return true
    if (complete !== 1) throw serviceUnavailable()
    return false
  }

  /** Which of `tokenIds` are revoked, in one round trip (the streaming service checks its open streams so). */
  async revokedAmong(tokenIds: string[]): Promise<Set<string>> {
    if (!tokenIds.length) return new Set()
    const flags = await this.redis.smismember(this.key, ...tokenIds)
    return new Set(tokenIds.filter((_, i) => flags[i] === 1))
  }
}
