import type { Redis } from 'ioredis'

/**
 * Users whose login cannot be used now (unconfirmed, pending approval, disabled, suspended), with the 403 message
 * Mastodon answers them, shared through Redis so that a service without the users table (push) refuses them as
 * the accounts service does. Accounts owns the state (Postgres) and writes this hash after every change and in
 * full at start-up and after Redis loses its data (docs/security.md, "Logins that cannot be used").
 */
export class LoginRefusals {
  readonly key: string
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}:login-refusals`
  }

  async set(userId: string, refusal: string | undefined): Promise<void> {
    if (refusal) await this.redis.hset(this.key, userId, refusal)
    else await this.redis.hdel(this.key, userId)
  }

  /** The whole set at once (MULTI): a reader never sees it empty half-way. */
  async replace(refusals: Map<string, string>): Promise<void> {
    const tx = this.redis.multi().del(this.key)
    if (refusals.size) tx.hset(this.key, Object.fromEntries(refusals))
    await tx.exec()
  }

  /** Which of `userIds` are refused, in one round trip (the streaming service checks its open streams so). */
  async refusedAmong(userIds: string[]): Promise<Set<string>> {
    if (!userIds.length) return new Set()
    const refusals = await this.redis.hmget(this.key, ...userIds)
    return new Set(userIds.filter((_, i) => refusals[i]))
  }

  /** The message to refuse the user with, or undefined when their login is usable. */
  async refusalOf(userId: string): Promise<string | undefined> {
    return (await this.redis.hget(this.key, userId)) ?? undefined
  }
}
