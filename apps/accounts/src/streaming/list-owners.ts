import type { Redis } from 'ioredis'
import type { Knex } from '@roost/db'
import { listOwnersKey } from '@roost/events'

/**
 * The owners of lists in Redis, for the streaming service's `list` stream (docs/streaming.md): set when a list is
 * made, removed when it is deleted, after the transaction commits.
 */
export async function publishListOwner(
  ctx: { redis: Redis; config: { REDIS_PREFIX: string } },
  listId: string,
  ownerId: string | undefined,
) {
  const key = listOwnersKey(ctx.config.REDIS_PREFIX)
  if (ownerId) await ctx.redis.hset(key, listId, ownerId)
  else await ctx.redis.hdel(key, listId)
}

/** Every list's owner, written in full (at start-up, and when Redis has lost its data), ten thousand at a time. */
export async function publishAllListOwners(ctx: {
  db: Knex
  redis: Redis
  config: { REDIS_PREFIX: string }
}) {
  const key = listOwnersKey(ctx.config.REDIS_PREFIX)
  let after = '0'
  for (;;) {
    const rows: { id: string; account_id: string }[] = await ctx
      .db('lists')
      .where('id', '>', after)
      .orderBy('id')
      .limit(10_000)
      .select('id', 'account_id')
    if (rows.length) await ctx.redis.hset(key, Object.fromEntries(rows.map((r) => [r.id, r.account_id])))
    if (rows.length < 10_000) return
    after = rows.at(-1)!.id
  }
}
