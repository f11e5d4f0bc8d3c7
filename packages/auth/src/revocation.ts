import type { Redis } from 'ioredis'

/**
 * Revoked token ids, kept in Redis so that every gateway and service refuses them at once.
 * The accounts service also keeps `revoked_at` on the token row, the durable record, and re-publishes it here
 * at start-up so a Redis that lost its data cannot bring revoked tokens back.
 */
export class RevocationList {
  private readonly key: string
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}:revoked-tokens`
  }

  async revoke(...tokenIds: string[]): Promise<void> {
    if (tokenIds.length) await this.redis.sadd(this.key, ...tokenIds)
  }

  async isRevoked(tokenId: string): Promise<boolean> {
    return (await this.redis.sismember(this.key, tokenId)) === 1
  }

  /** Which of `tokenIds` are revoked, in one round trip (the streaming service checks its open streams so). */
  async revokedAmong(tokenIds: string[]): Promise<Set<string>> {
    if (!tokenIds.length) return new Set()
    const flags = await this.redis.smismember(this.key, ...tokenIds)
    return new Set(tokenIds.filter((_, i) => flags[i] === 1))
  }
}
