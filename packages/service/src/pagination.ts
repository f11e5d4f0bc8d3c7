import type { Params } from './params'

export const DEFAULT_STATUSES_LIMIT = 20
export const DEFAULT_ACCOUNTS_LIMIT = 40
export const DEFAULT_NOTIFICATIONS_LIMIT = 40

export interface Page {
  limit: number
  maxId?: string
  sinceId?: string
  minId?: string
}

const ID = /^\d{1,19}$/
const BIGINT_MAX = 2n ** 63n - 1n

/**
 * A cursor that is not an id within Postgres' bigint (19 digits may be above it) is ignored. A JSON body may give
 * it as a number: a safe integer is one (a larger one arrives as its text, see json.ts).
 */
function cursor(value: unknown): string | undefined {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value
  return typeof text === 'string' && ID.test(text) && BigInt(text) <= BIGINT_MAX ? text : undefined
}

/**
 * Mastodon's `limit_param`: absent → the endpoint's default; otherwise |to_i(limit)| capped at twice the default
 * (so a non-numeric limit gives an empty page, as in Mastodon).
 */
export function readPage(p: Params, defaultLimit: number): Page {
  let limit = defaultLimit
  if (p.limit !== undefined && p.limit !== '') {
    // Anything but text or a number (an array, `limit[toString]=…`) is not a number either.
    const text = typeof p.limit === 'string' || typeof p.limit === 'number' ? String(p.limit) : ''
    const parsed = Math.abs(Number.parseInt(text, 10))
    limit = Math.min(Number.isNaN(parsed) ? 0 : parsed, defaultLimit * 2)
  }
  return { limit, maxId: cursor(p.max_id), sinceId: cursor(p.since_id), minId: cursor(p.min_id) }
}

type Query = Record<string, string | string[] | undefined>

function url(base: string, path: string, query: Query): string {
  const search = new URLSearchParams()
  for (const key of Object.keys(query).sort()) {
    const value = query[key]
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) search.append(`${key}[]`, v)
    else search.append(key, value)
  }
  const qs = search.toString()
  return `${base.replace(/\/$/, '')}${path}${qs ? `?${qs}` : ''}`
}

/**
 * Mastodon's Link header: absolute URLs, next then prev, keys in alphabetical order.
 * `next` carries `max_id`; `prev` carries `min_id` or `since_id` depending on the endpoint.
 */
export function linkHeader(
  base: string,
  path: string,
  kept: Query,
  links: { next?: Query; prev?: Query },
): string | undefined {
  const parts: string[] = []
  if (links.next) parts.push(`<${url(base, path, { ...kept, ...links.next })}>; rel="next"`)
  if (links.prev) parts.push(`<${url(base, path, { ...kept, ...links.prev })}>; rel="prev"`)
  return parts.length ? parts.join(', ') : undefined
}
