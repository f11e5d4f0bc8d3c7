import { createHash, randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { Unavailable } from '@roost/errors'

/** How long a key remembers its result (Mastodon: one hour). */
export const IDEMPOTENCY_TTL_SECONDS = 3600
/** A claim outlives any honest creation; it only expires if its process died holding it. */
const CLAIM_TTL_SECONDS = 60
/** How long a repeat waits for the first request to finish before asking the client to retry. */
const WAIT_MS = 15_000

const PENDING = 'pending:'

// Deletes the claim only if it is still ours (a claim that expired may have been taken by another request).
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`

export const raceCondition = () => new Unavailable()

/**
 * Runs `create` once per key (Mastodon's `Idempotency-Key`, docs/statuses.md): the first request claims the key
 * in Redis, creates, and stores what it created for an hour; a repeat returns that instead of creating again.
 * A repeat that arrives while the first is still running waits for its result, so two identical requests at
 * once still make one record; if the first fails, its claim is released and the repeat creates in its place.
 * Returns what `create` returned, now or the first time.
 */
export async function once(
  redis: Redis,
  scope: string,
  key: string,
  create: () => Promise<string>,
): Promise<string> {
  // Hashed: a client-chosen key of any length becomes a Redis key of fixed size.
  const redisKey = `${scope}:${createHash('sha256').update(key).digest('hex')}`
  const claim = `${PENDING}${randomUUID()}`
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    if ((await redis.set(redisKey, claim, 'EX', CLAIM_TTL_SECONDS, 'NX')) === 'OK') {
      let result: string
      try {
        result = await create()
      } catch (err) {
        await redis.eval(RELEASE, 1, redisKey, claim)
        throw err
      }
      await redis.set(redisKey, result, 'EX', IDEMPOTENCY_TTL_SECONDS)
      return result
    }
    const existing = await redis.get(redisKey)
    if (existing !== null && !existing.startsWith(PENDING)) return existing
    if (Date.now() > deadline) throw raceCondition()
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
