import type { ChainableCommander, Redis, Result } from 'ioredis'
import type { Page } from '@roost/service'

/**
 * Feeds in Redis, as Mastodon's FeedManager keeps them (docs/feeds.md): a sorted set per feed, member = score =
 * status id, capped at MAX_ITEMS; reblogs of the same post de-duplicated within the newest REBLOG_FALLOFF items.
 * Redis holds only what Postgres can rebuild: a feed without its `state` key is not known to be whole (never built,
 * lost, or dropped while its owner was away), and its next read rebuilds it. Fan-out writes to it all the same, as
 * Mastodon writes to a missing sorted set: the rebuild adds what came before, never takes away.
 *
 * Every key of a feed shares one hash tag, so its Lua scripts stay within one Redis Cluster slot:
 *   <prefix>:feed:{home:<id>}                 the items
 *   <prefix>:feed:{home:<id>}:reblogs         original id → the reblog of it that is in the feed (score)
 *   <prefix>:feed:{home:<id>}:reblogs:<orig>  reblogs of <orig> held back because one is shown already
 *   <prefix>:feed:{home:<id>}:state           'ready', or 'regenerating' while a job rebuilds it (206)
 */
export const MAX_ITEMS = 800
export const REBLOG_FALLOFF = 40
/** A regeneration that never finished (its job failed for good) is tried again after this long. */
const REGENERATING_TTL_S = 24 * 3600

export type FeedType = 'home' | 'list'
export interface Feed {
  type: FeedType
  id: string
}
export const home = (accountId: string): Feed => ({ type: 'home', id: accountId })
export const list = (listId: string): Feed => ({ type: 'list', id: listId })

/** What a feed needs to know of a status to add or remove it. */
export interface FeedItem {
  id: string
  reblog_of_id: string | null
}

// Inserts a status (Mastodon's add_to_feed with reblog aggregation), then trims. Returns 1 when it went in,
// 0 when it was held back or is there already.
const INSERT = `
local id, of = ARGV[1], ARGV[2]
local max, falloff = tonumber(ARGV[3]), tonumber(ARGV[4])
if of ~= '' then
  local rank = redis.call('ZREVRANK', KEYS[1], of)
  if rank and rank < falloff then return 0 end
  if redis.call('ZSCORE', KEYS[2], of) then
    if redis.call('ZSCORE', KEYS[1], id) then return 0 end
    redis.call('SADD', KEYS[2] .. ':' .. of, id)
    return 0
  end
  redis.call('ZADD', KEYS[2], id, of)
elseif redis.call('ZSCORE', KEYS[2], id) then
  return 0
end
if redis.call('ZADD', KEYS[1], id, id) == 0 then return 0 end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(max + 1))
local edge = redis.call('ZREVRANGE', KEYS[1], falloff, falloff, 'WITHSCORES')
if edge[2] then
  for _, stale in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', edge[2])) do
    redis.call('DEL', KEYS[2] .. ':' .. stale)
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', edge[2])
end
return 1
`

// Removes a status (Mastodon's remove_from_feed). A shown reblog gives its place to the oldest reblog of the same
// post that was held back. Returns 1 when something left the feed.
const REMOVE = `
local id, of = ARGV[1], ARGV[2]
if of ~= '' then
  local held = KEYS[2] .. ':' .. of
  redis.call('SREM', held, id)
  if not redis.call('ZSCORE', KEYS[1], id) then return 0 end
  redis.call('ZREM', KEYS[2], of)
  local oldest
  for _, other in ipairs(redis.call('SMEMBERS', held)) do
    if not oldest or #other < #oldest or (#other == #oldest and other < oldest) then oldest = other end
  end
  if oldest then
    redis.call('SREM', held, oldest)
    redis.call('ZADD', KEYS[1], oldest, oldest)
    redis.call('ZADD', KEYS[2], oldest, of)
  end
else
  redis.call('DEL', KEYS[2] .. ':' .. id)
  redis.call('ZREM', KEYS[2], id)
end
return redis.call('ZREM', KEYS[1], id)
`

// Deletes a feed with everything that goes with it.
const DROP = `
for _, of in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do redis.call('DEL', KEYS[2] .. ':' .. of) end
return redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
`

declare module 'ioredis' {
  interface RedisCommander<Context> {
    feedInsert(
      feed: string,
      reblogs: string,
      id: string,
      reblogOf: string,
      max: number,
      falloff: number,
    ): Result<number, Context>
    feedRemove(feed: string, reblogs: string, id: string, reblogOf: string): Result<number, Context>
    feedDrop(feed: string, reblogs: string, state: string): Result<number, Context>
  }
}

/** Exact id order (ids are digit strings of up to 19 digits; scores are doubles, exact only to 2^53). */
const byIdDesc = (a: string, b: string) => (BigInt(b) > BigInt(a) ? 1 : BigInt(b) < BigInt(a) ? -1 : 0)

export function createFeedStore(redis: Redis, redisPrefix: string) {
  redis.defineCommand('feedInsert', { numberOfKeys: 2, lua: INSERT })
  redis.defineCommand('feedRemove', { numberOfKeys: 2, lua: REMOVE })
  redis.defineCommand('feedDrop', { numberOfKeys: 3, lua: DROP })

  const keys = (feed: Feed) => {
    const items = `${redisPrefix}:feed:{${feed.type}:${feed.id}}`
    return { items, reblogs: `${items}:reblogs`, state: `${items}:state` }
  }

  const insertInto = (r: Redis | ChainableCommander, feed: Feed, item: FeedItem) => {
    const k = keys(feed)
    return r.feedInsert(k.items, k.reblogs, item.id, item.reblog_of_id ?? '', MAX_ITEMS, REBLOG_FALLOFF)
  }
  const removeFrom = (r: Redis | ChainableCommander, feed: Feed, item: FeedItem) => {
    const k = keys(feed)
    return r.feedRemove(k.items, k.reblogs, item.id, item.reblog_of_id ?? '')
  }

  const store = {
    keys,

    /** Adds items (oldest first, as they would have arrived) to one feed, in one round trip. */
    async insert(feed: Feed, items: FeedItem[]) {
      if (!items.length) return
      const pipeline = redis.pipeline()
      for (const item of items) insertInto(pipeline, feed, item)
      await exec(pipeline)
    },

    /** Adds one item to many feeds, in one round trip; returns the feeds it went into (not held back). */
    async insertEverywhere(feeds: Feed[], item: FeedItem): Promise<Feed[]> {
      if (!feeds.length) return []
      const pipeline = redis.pipeline()
      for (const feed of feeds) insertInto(pipeline, feed, item)
      const results = await exec(pipeline)
      return feeds.filter((_, i) => results[i] === 1)
    },

    /** Removes items from one feed, in one round trip; returns those that were in it. */
    async remove(feed: Feed, items: FeedItem[]): Promise<FeedItem[]> {
      if (!items.length) return []
      const pipeline = redis.pipeline()
      for (const item of items) removeFrom(pipeline, feed, item)
      const results = await exec(pipeline)
      return items.filter((_, i) => results[i] === 1)
    },

    /** Removes one item from many feeds, in one round trip; returns the feeds it was in. */
    async removeEverywhere(feeds: Feed[], item: FeedItem): Promise<Feed[]> {
      if (!feeds.length) return []
      const pipeline = redis.pipeline()
      for (const feed of feeds) removeFrom(pipeline, feed, item)
      const results = await exec(pipeline)
      return feeds.filter((_, i) => results[i] === 1)
    },

    /** The feeds among `feeds` that hold the status `id`, in one round trip. */
    async holding(feeds: Feed[], id: string): Promise<Feed[]> {
      if (!feeds.length) return []
      const pipeline = redis.pipeline()
      for (const feed of feeds) pipeline.zscore(keys(feed).items, id)
      const scores = await exec(pipeline)
      return feeds.filter((_, i) => scores[i] !== null)
    },

    /** Every id in the feed, newest first. */
    async ids(feed: Feed): Promise<string[]> {
      return redis.zrevrange(keys(feed).items, 0, -1)
    },

    /**
     * One page of ids, newest first, with Mastodon's cursors (exclusive bounds; `min_id` reads the page just above
     * it). Scores round ids above 2^53, so the bounds are applied inclusively in Redis and exactly here.
     */
    async page(feed: Feed, page: Page): Promise<string[]> {
      if (page.limit === 0) return []
      const key = keys(feed).items
      const above = page.minId ?? page.sinceId
      const inRange = (id: string) =>
        (!page.maxId || BigInt(id) < BigInt(page.maxId)) && (!above || BigInt(id) > BigInt(above))
      // Up to 16 ids share a score at today's magnitudes: read that many more than needed.
      const count = page.limit + 16
      if (page.minId) {
        const ids = await redis.zrangebyscore(key, page.minId, page.maxId ?? '+inf', 'LIMIT', 0, count)
        return ids.filter(inRange).sort(byIdDesc).slice(-page.limit)
      }
      const ids = await redis.zrevrangebyscore(key, page.maxId ?? '+inf', above ?? '-inf', 'LIMIT', 0, count)
      return ids.filter(inRange).sort(byIdDesc).slice(0, page.limit)
    },

    /** 'ready', 'regenerating', or undefined when the feed is not there (never built, or Redis lost it). */
    async state(feed: Feed): Promise<'ready' | 'regenerating' | undefined> {
      return ((await redis.get(keys(feed).state)) ?? undefined) as 'ready' | 'regenerating' | undefined
    },

    /** Marks a missing feed as being rebuilt; true if this call did (and so must ask for the rebuild). */
    async claimRegeneration(feed: Feed): Promise<boolean> {
      return (await redis.set(keys(feed).state, 'regenerating', 'EX', REGENERATING_TTL_S, 'NX')) === 'OK'
    },

    /**
     * Claims a missing feed's rebuild and runs `start` (the rebuild itself, or the request for it). If `start`
     * fails, the claim is given back, so the next read tries again. Undefined when another holds the claim.
     */
    async withClaim<T>(feed: Feed, start: () => Promise<T>): Promise<T | undefined> {
      if (!(await store.claimRegeneration(feed))) return undefined
      try {
        return await start()
      } catch (err) {
        await store.drop(feed)
        throw err
      }
    },

    async markReady(feed: Feed) {
      await redis.set(keys(feed).state, 'ready')
    },

    /** A new user's feed: empty and ready, unless something already marked it (a read that rebuilt it). */
    async start(feed: Feed) {
      await redis.set(keys(feed).state, 'ready', 'NX')
    },

    /** Forgets a feed: the next read finds it missing and has it rebuilt. */
    async drop(feed: Feed) {
      const k = keys(feed)
      await redis.feedDrop(k.items, k.reblogs, k.state)
    },
  }
  return store
}

export type FeedStore = ReturnType<typeof createFeedStore>

/**
 * Runs a pipeline and fails if any of its commands failed (ioredis reports those per command); returns each
 * command's result.
 */
async function exec(pipeline: ChainableCommander): Promise<unknown[]> {
  const results = (await pipeline.exec()) ?? []
  const failed = results.find(([err]) => err)
  if (failed) throw failed[0]
  return results.map(([, result]) => result)
}
