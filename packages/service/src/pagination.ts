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

/** Query parameters of a link: a list is written `key[]=a&key[]=b`; undefined is left out. */
export type LinkQuery = Record<string, string | string[] | undefined>

function url(base: string, path: string, query: LinkQuery): string {
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
 * Mastodon's Link header: absolute URLs, next then prev, keys in alphabetical order. Only `setPageLinks` writes
 * one.
 */
function linkHeader(
  base: string,
  path: string,
  kept: LinkQuery,
  links: { next?: LinkQuery; prev?: LinkQuery },
) {
  const parts: string[] = []
  if (links.next) parts.push(`<${url(base, path, { ...kept, ...links.next })}>; rel="next"`)
  if (links.prev) parts.push(`<${url(base, path, { ...kept, ...links.prev })}>; rel="prev"`)
  return parts.length ? parts.join(', ') : undefined
}

/**
 * When a page links to the next (older) one, Mastodon's rule for the endpoint: `when-full`, only after a page of
 * `limit` rows (`records_continue?`: most lists), or `when-not-empty`, after any page with rows (timelines,
 * notifications, a few admin lists).
 */
export type NextRule = 'when-full' | 'when-not-empty'

/** How an endpoint pages and what its links keep (see `setPageLinks`). */
export type Paging<T> = {
  /** The page's size, as `readPage` read it. */
  limit: number
  next: NextRule
  /** The parameters the links keep besides the cursor (limit, the endpoint's filters), as the client sent them. */
  kept?: LinkQuery
  /** The links' path when it is not the request's own. */
  path?: string
} & (
  | {
      /** A row's value in the column the page is ordered by: its id, or its bookmark's, follow's… id. */
      cursor: (row: T) => string | number
      /** The prev link's parameter: `min_id` (the page right above) or `since_id` (some older endpoints). */
      prev: 'min_id' | 'since_id'
    }
  | {
      /** Paged by offset (trends): next at `offset + limit`; prev at `offset - limit` while `offset > limit`. */
      offset: number
    }
)

/**
 * The one way a list endpoint writes its Link header (Mastodon's `insert_pagination_headers`): absolute URLs on
 * `base` (PUBLIC_URL), next then prev, keys sorted. `rows` are the page as read, newest first, before anything is
 * dropped from what is rendered. A keyset page links next with `max_id` = the last row's cursor (by `next`'s
 * rule) and prev with `min_id` or `since_id` = the first row's; an empty page has no Link header. An offset page
 * links next by `next`'s rule and prev while `offset > limit`.
 */
export function setPageLinks<T>(
  req: { path: string },
  res: { setHeader(name: string, value: string): unknown },
  base: string,
  rows: readonly T[],
  paging: Paging<T>,
) {
  const continues = rows.length > 0 && (paging.next === 'when-not-empty' || rows.length === paging.limit)
  let links: { next?: LinkQuery; prev?: LinkQuery }
  if ('offset' in paging) {
    const { offset, limit } = paging
    links = {
      next: continues ? { offset: String(offset + limit) } : undefined,
      prev: offset > limit ? { offset: String(offset - limit) } : undefined,
    }
  } else {
    const first = rows[0]
    const last = rows.at(-1)
    links = {
      next: continues && last !== undefined ? { max_id: String(paging.cursor(last)) } : undefined,
      prev: first !== undefined ? { [paging.prev]: String(paging.cursor(first)) } : undefined,
    }
  }
  const link = linkHeader(base, paging.path ?? req.path, paging.kept ?? {}, links)
  if (link) res.setHeader('Link', link)
}

/**
 * The parameters among `keys` that the client sent as text in the query string, verbatim: what a timeline's
 * links keep (Mastodon's `params.slice(...)`).
 */
export function keptFromQuery(query: Record<string, unknown>, keys: readonly string[]): LinkQuery {
  const kept: LinkQuery = {}
  for (const key of keys) if (typeof query[key] === 'string') kept[key] = query[key]
  return kept
}
