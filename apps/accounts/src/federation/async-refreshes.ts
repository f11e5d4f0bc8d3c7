import type { Redis } from 'ioredis'

/**
 * Mastodon's AsyncRefresh (docs/federation.md, "Complete threads"): work the worker does for a request that has
 * answered already, which clients poll at GET /api/v1_alpha/async_refreshes/:id and learn of from the
 * `Mastodon-Async-Refresh` response header. Kept in Redis: `running` until the worker finishes it (or for
 * RUNNING_TTL_S, if it never does), then `finished` with its `result_count` for FINISHED_TTL_S.
 */

export const RUNNING_TTL_S = 10 * 60
export const FINISHED_TTL_S = 60 * 60
/** Seconds a client is told to wait before asking again (Mastodon's `retry`). */
export const RETRY_SECONDS = 3

export interface AsyncRefresh {
  id: string
  status: 'running' | 'finished'
  result_count: number
}

/** The id of the refresh of a status's context (Mastodon's `context:<id>:refresh` key, opaque to clients). */
export const contextRefreshId = (statusId: string) =>
  Buffer.from(`context:${statusId}:refresh`).toString('base64url')

export function createAsyncRefreshes(redis: Redis, redisPrefix: string) {
  const key = (id: string) => `${redisPrefix}:async-refresh:${id}`
  return {
    async get(id: string): Promise<AsyncRefresh | undefined> {
      if (!/^[A-Za-z0-9_-]{1,200}$/.test(id)) return undefined
      const v = await redis.hgetall(key(id))
      if (v.status !== 'running' && v.status !== 'finished') return undefined
      return { id, status: v.status, result_count: Number(v.result_count ?? 0) }
    },
    async start(id: string) {
      await redis
        .multi()
        .del(key(id))
        .hset(key(id), { status: 'running', result_count: 0 })
        .expire(key(id), RUNNING_TTL_S)
        .exec()
    },
    async finish(id: string, resultCount: number) {
      await redis
        .multi()
        .hset(key(id), { status: 'finished', result_count: resultCount })
        .expire(key(id), FINISHED_TTL_S)
        .exec()
    },
  }
}
export type AsyncRefreshes = ReturnType<typeof createAsyncRefreshes>

/** The `Mastodon-Async-Refresh` header of a running refresh, as Mastodon's AsyncRefreshesConcern writes it. */
export const asyncRefreshHeader = (r: AsyncRefresh) =>
  `id="${r.id}", retry=${RETRY_SECONDS}, result_count=${r.result_count}`
