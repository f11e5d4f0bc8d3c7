import type { Redis, Result } from 'ioredis'

/** Takes the claim if it is free or already this holder's (then its life starts again); 1 if taken, else 0. */
const TAKE = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`

/** Lets the claim go if this holder still has it. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`

declare module 'ioredis' {
  interface RedisCommander<Context> {
    pushClaimTake(key: string, holder: string, ttlMs: number): Result<number, Context>
    pushClaimRelease(key: string, holder: string): Result<number, Context>
  }
}

/**
 * Who is sending a push, or has just sent it (docs/security.md, "Push delivery: nothing lost, nothing twice"). Two
 * jobs may hold the same push at once (a notification event published twice, a retry job and a replayed fan-out):
 * the one that claims it sends, the other lets it be. A holder that dies keeps its claim until BullMQ runs its job
 * again (the same holder: it takes its claim back) or the claim runs out; a holder whose push failed lets it go (for
 * the retry), one whose push was sent and recorded keeps it until it runs out. So a claim never stops a push for
 * good: the acknowledgements in Postgres decide what was sent, the claim only who sends now.
 */
export function createPushClaims(redis: Redis, redisPrefix: string, ttlMs: number) {
  redis.defineCommand('pushClaimTake', { numberOfKeys: 1, lua: TAKE })
  redis.defineCommand('pushClaimRelease', { numberOfKeys: 1, lua: RELEASE })
  const key = (deliveryId: string) => `${redisPrefix}:push-claim:${deliveryId}`
  /** The pipeline's answers, in order; a command that failed (Redis gone) fails the whole call. */
  const answers = async (pipeline: ReturnType<Redis['pipeline']>) =>
    ((await pipeline.exec()) ?? []).map(([err, answer]) => {
      if (err) throw err
      return answer
    })
  return {
    /** Claims each push for `holder`, all in one round trip: whether each was taken, in order. */
    takeAll: async (deliveryIds: string[], holder: string): Promise<boolean[]> => {
      if (!deliveryIds.length) return []
      const pipeline = redis.pipeline()
      for (const id of deliveryIds) pipeline.pushClaimTake(key(id), holder, ttlMs)
      return (await answers(pipeline)).map((taken) => taken === 1)
    },
    releaseAll: async (deliveryIds: string[], holder: string) => {
      if (!deliveryIds.length) return
      const pipeline = redis.pipeline()
      for (const id of deliveryIds) pipeline.pushClaimRelease(key(id), holder)
      await answers(pipeline)
    },
  }
}
