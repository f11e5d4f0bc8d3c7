import { Redis } from 'ioredis'
import type { BenchUser, Fixtures } from './fixtures'
import { call } from './fixtures'
import type { BenchStack } from './stack'
import { round, settle } from './write-path'

/** Redis's command counters (INFO commandstats): calls per command, those run inside Lua scripts included. */
async function commandCalls(redis: Redis): Promise<Record<string, number>> {
  const info = await redis.info('commandstats')
  const out: Record<string, number> = {}
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1]!] = Number(m[2])
  return out
}

const callsBetween = (before: Record<string, number>, after: Record<string, number>) => {
  const out: Record<string, number> = {}
  for (const [name, n] of Object.entries(after)) {
    const d = n - (before[name] ?? 0)
    if (d > 0) out[name] = d
  }
  return out
}
const sum = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0)

/**
 * One status to `followers` local followers (issue #10, item 5): `followers` active accounts follow a new author and
 * their home feeds exist; the author posts once through the gateway, and the scenario measures the seconds from the
 * post to the last follower's feed holding it, and the Redis commands the whole pipeline ran for it (INFO
 * commandstats, commands inside the feed scripts counted). Baseline, in the same run: a bare pipelined ZADD of the
 * same status id into `followers` sorted sets, in pipelines of 1,000 (the fan-out's page), its seconds and commands.
 */
export async function fanOutScaleScenario(
  stack: BenchStack,
  fixtures: Fixtures,
  o: { author: BenchUser; followers: number },
) {
  const prefix = stack.env.REDIS_PREFIX ?? 'roost'
  const { rows } = await fixtures.db.raw<{ rows: { account_id: string }[] }>(
    `WITH a AS (
       INSERT INTO accounts (username) SELECT 'scale_' || g FROM generate_series(1, ?) g RETURNING id, username
     ), u AS (
       INSERT INTO users (account_id, email, encrypted_password, confirmed_at)
       SELECT id, username || '@bench.test', 'x', now() FROM a RETURNING account_id
     ), f AS (
       INSERT INTO follows (account_id, target_account_id) SELECT account_id, ? FROM u RETURNING account_id
     )
     SELECT account_id FROM f ORDER BY account_id`,
    [o.followers, o.author.accountId],
  )
  const followerIds = rows.map((r) => String(r.account_id))
  const redis = new Redis(stack.redisUrl)
  try {
    // Their home feeds exist (as after a first read), so the fan-out writes into them.
    const ready = redis.pipeline()
    for (const id of [...followerIds, o.author.accountId])
      ready.set(`${prefix}:feed:{home:${id}}:state`, 'ready')
    await ready.exec()
    await fixtures.db.raw('ANALYZE accounts, users, follows')
    await settle(fixtures, stack)

    // The baseline: the same number of ZADDs of one id, pipelined a page at a time.
    const fakeId = '1'
    const baselineBefore = await commandCalls(redis)
    const baselineStarted = performance.now()
    for (let i = 0; i < followerIds.length; i += 1000) {
      const pipeline = redis.pipeline()
      for (const id of followerIds.slice(i, i + 1000))
        pipeline.zadd(`bench-baseline:{home:${id}}`, fakeId, fakeId)
      await pipeline.exec()
    }
    const baselineSeconds = (performance.now() - baselineStarted) / 1000
    const baselineCommands = sum(callsBetween(baselineBefore, await commandCalls(redis))) - 1 // the INFO itself
    for (let i = 0; i < followerIds.length; i += 1000)
      await redis.del(...followerIds.slice(i, i + 1000).map((id) => `bench-baseline:{home:${id}}`))

    // The fan-out: from sending the post until the last follower's feed holds it.
    const last = `${prefix}:feed:{home:${followerIds.at(-1)}}`
    const before = await commandCalls(redis)
    const started = performance.now()
    const res = await call(`${stack.gatewayUrl}/api/v1/statuses`, 'POST', o.author.token, {
      status: 'one status for ten thousand followers',
    })
    if (res.status !== 200) throw new Error(`POST /api/v1/statuses: ${res.status}`)
    const statusId = String(res.body.id)
    const deadline = Date.now() + 300_000
    while ((await redis.zscore(last, statusId)) === null) {
      if (Date.now() > deadline) throw new Error('the fan-out did not reach the last follower')
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const seconds = (performance.now() - started) / 1000
    await settle(fixtures, stack)
    const calls = callsBetween(before, await commandCalls(redis))
    const commands = sum(calls) - 1
    const reached = Number(
      await redis.eval(
        `local n = 0 for _, k in ipairs(KEYS) do if redis.call('ZSCORE', k, ARGV[1]) then n = n + 1 end end return n`,
        followerIds.length,
        ...followerIds.map((id) => `${prefix}:feed:{home:${id}}`),
        statusId,
      ),
    )
    return {
      followers: o.followers,
      reached,
      seconds: round(seconds),
      baselineSeconds: round(baselineSeconds),
      secondsRatio: round(seconds / baselineSeconds),
      redisCommands: commands,
      baselineRedisCommands: baselineCommands,
      commandsRatio: round(commands / baselineCommands),
      /** The fan-out's commands by name, the feed script's inner commands included. */
      redisCommandsByName: calls,
    }
  } finally {
    redis.disconnect()
  }
}
