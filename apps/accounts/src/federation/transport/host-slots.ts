import type { Redis } from 'ioredis'

/**
 * A cap on the deliveries in flight to one host (docs/federation.md, "Delivery"): a counting semaphore per host in
 * Redis, shared by every worker process. A slot is a member of the host's sorted set scored by the time its lease
 * ends; slots whose lease ended (a worker that died mid-delivery) are dropped before counting, so a lost release
 * costs at most one lease. The lease outlasts any delivery (the outbound client gives up within seconds).
 */

/** Takes a slot if fewer than `limit` live ones exist (or `holder` has one already); 1 taken, 0 busy. */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
  return 1
end
return 0`

/** How long a slot is held at most when its holder never releases it. */
export const SLOT_LEASE_MS = 60_000

export function createHostSlots(redis: Redis, redisPrefix: string, limit: number, name = 'delivery-slots') {
  const key = (host: string) => `${redisPrefix}:${name}:{${host}}`
  return {
    limit,
    /** Whether `holder` (a delivery job) may send to `host` now; it must `release` the slot afterwards. */
    async acquire(host: string, holder: string): Promise<boolean> {
      return (await redis.eval(ACQUIRE, 1, key(host), holder, limit, SLOT_LEASE_MS)) === 1
    },
    async release(host: string, holder: string) {
      await redis.zrem(key(host), holder)
    },
  }
}

export type HostSlots = ReturnType<typeof createHostSlots>
