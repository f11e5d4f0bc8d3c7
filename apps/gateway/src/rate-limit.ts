import type { Redis, Result } from 'ioredis'
import { HttpError } from '@roost/service'
import type { Logger } from '@roost/service'
import type { AccessToken } from '@roost/auth'
import type { Route, RouteRateLimit } from '@roost/routes'
import type { GatewayConfig } from './config'
import { rateLimitSubject } from '@roost/auth'

/** What a family counts against: the client address (IPv6 by /64), the access token, or the token's user. */
export type RateKey = 'ip' | 'token' | 'user'

export interface RateLimitFamily {
  /** The general families count every route under /api; the others the routes naming them in the table. */
  name: 'api_user' | 'api_token' | 'api_ip' | RouteRateLimit
  key: RateKey
  /** Only requests without a user token (Mastodon's "unauthenticated": no token, or an app token). */
  anonymousOnly?: boolean
  /** The config variable holding the family's `<limit>/<seconds>`. */
  setting: keyof GatewayConfig & `RATE_LIMIT_${string}`
}

/**
 * THE rate-limit families (Mastodon's Rack::Attack throttles and per-account families; docs/operations.md).
 * Which routes a per-route family counts is an attribute of the route table (`rateLimit`).
 * Every request counts against each family that applies to it; windows are fixed and aligned to the Unix
 * epoch, as Rack::Attack's. Unlike Mastodon's per-account families (counted after the record is created), the
 * gateway counts requests, so a refused follow or status counts too.
 */
export const RATE_LIMIT_FAMILIES: RateLimitFamily[] = [
  { name: 'api_user', key: 'user', setting: 'RATE_LIMIT_API_USER' },
  { name: 'api_token', key: 'token', setting: 'RATE_LIMIT_API_TOKEN' },
  { name: 'api_ip', key: 'ip', anonymousOnly: true, setting: 'RATE_LIMIT_API_IP' },
  { name: 'sign_ups', key: 'ip', setting: 'RATE_LIMIT_SIGN_UPS' },
  {
    name: 'app_registrations',
    key: 'ip',
    setting: 'RATE_LIMIT_APP_REGISTRATIONS',
  },
  {
    name: 'follows',
    key: 'user',
    setting: 'RATE_LIMIT_FOLLOWS',
  },
  {
    name: 'statuses',
    key: 'user',
    setting: 'RATE_LIMIT_STATUSES',
  },
  {
    name: 'deletes',
    key: 'user',
    setting: 'RATE_LIMIT_DELETES',
  },
  {
    name: 'media',
    key: 'user',
    setting: 'RATE_LIMIT_MEDIA',
  },
]

const GENERAL_FAMILIES: readonly string[] = ['api_user', 'api_token', 'api_ip']

declare module 'ioredis' {
  interface RedisCommander<Context> {
    rateLimitHit(key: string, ttlMs: number): Result<number, Context>
  }
}

/** Counts one request in a window: INCR, and the key's expiry set on the first hit, atomically in Redis. */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`

export interface RateLimitState {
  limit: number
  remaining: number
  /** The end of the current window. */
  reset: Date
}

/** Mastodon's `X-RateLimit-Reset`: ISO 8601 UTC with six fractional digits. */
const iso6 = (date: Date) => date.toISOString().replace(/Z$/, '000Z')

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': iso6(state.reset),
  }
}

export const tooManyRequests = (state: RateLimitState) =>
  new HttpError(429, 'Too many requests', {}, rateLimitHeaders({ ...state, remaining: 0 }))

/**
 * Counters in Redis under `${prefix}:rate:`, shared by every gateway replica. One key per family, subject and
 * window (`…:rate:follows:user:123:<window index>`), gone when the window ends. Each key is hit by its own
 * script call (one slot per key, so it works on Redis Cluster), all of a request's hits in one pipeline.
 */
export function createRateLimiter(redis: Redis, config: GatewayConfig, logger: Logger) {
  redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT })
  const enabled = config.RATE_LIMITS !== 'off'

  /** The families that apply to a route, with their budgets: worked out once per route at start-up. */
  function familiesFor(route: Route) {
    if (!enabled) return []
    return RATE_LIMIT_FAMILIES.filter((f) =>
      GENERAL_FAMILIES.includes(f.name)
        ? route.path.startsWith('/api/')
        : (route.rateLimit ?? []).includes(f.name as RouteRateLimit),
    ).map((f) => ({ ...f, ...config[f.setting] }))
  }

  /**
   * Counts a request against its route's families and returns the state to show (the family with the fewest
   * requests left), or undefined when none applies. If Redis fails, the request goes through (logged):
   * an outage of the counters should not take the API down.
   */
  async function hit(
    families: ReturnType<typeof familiesFor>,
    who: { address: string; token?: AccessToken },
    now = Date.now(),
  ): Promise<RateLimitState | undefined> {
    const subjects: Record<RateKey, string | undefined> = {
      ip: `ip:${rateLimitSubject(who.address)}`,
      token: who.token && `token:${who.token.tokenId}`,
      user: who.token?.userId && `user:${who.token.userId}`,
    }
    const counted = families.filter((f) => subjects[f.key] && !(f.anonymousOnly && who.token?.userId))
    if (!counted.length) return undefined
    const pipeline = redis.pipeline()
    const windows = counted.map((f) => {
      const periodMs = f.period * 1000
      const index = Math.floor(now / periodMs)
      const reset = new Date((index + 1) * periodMs)
      pipeline.rateLimitHit(
        `${config.REDIS_PREFIX}:rate:${f.name}:${subjects[f.key]}:${index}`,
        reset.getTime() - now + 1000,
      )
      return { limit: f.limit, reset }
    })
    let results
    try {
      results = (await pipeline.exec()) ?? []
    } catch (err) {
      logger.error({ err }, 'rate limits unavailable; request let through')
      return undefined
    }
    let shown: (RateLimitState & { exceeded: boolean }) | undefined
    windows.forEach(({ limit, reset }, i) => {
      const [err, count] = results[i] ?? [new Error('no reply')]
      if (err) return logger.error({ err }, 'rate limit counter failed; not applied')
      const remaining = Math.max(0, limit - Number(count))
      const exceeded = Number(count) > limit
      if (!shown || remaining < shown.remaining || (remaining === shown.remaining && exceeded))
        shown = { limit, remaining, reset, exceeded }
    })
    if (shown?.exceeded) throw tooManyRequests(shown)
    return shown && { limit: shown.limit, remaining: shown.remaining, reset: shown.reset }
  }

  return { familiesFor, hit }
}
