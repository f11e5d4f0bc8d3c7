import { randomUUID } from 'node:crypto'
import type { Federation } from './transport/client'
import { FetchError } from './transport/client'
import type { HostSlots } from './transport/host-slots'
import { isUrlBlocked } from './domain-blocks'

/**
 * Reading other servers' collections for local readers (docs/federation.md, "What is fetched when"): outboxes,
 * `featured`, `replies` and FEP-7888 `context` collections. Every document goes through the federation client (the
 * SSRF-guarded outbound client, its 1 MiB size limit, signed by the instance actor so that authorized-fetch
 * servers answer) and through a per-domain slot (FEDERATION_FETCH_HOST_CONCURRENCY across all worker processes);
 * every walk stops at its page, item and time limits, whatever the server answers: huge, slow, endless `next`
 * chains and pages that link to themselves alike.
 */

type Json = Record<string, unknown>

export const isJson = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v)

/** Items taken from one page at most: a page listing a million items costs no more than a page of this many. */
export const ITEMS_PER_PAGE = 100

/** A document fetched through a per-domain slot, given up at the deadline (a Unix time in ms). */
export type BoundedFetch = (url: string, deadline: number) => Promise<Json>

const hostOf = (url: string) => {
  try {
    return new URL(url).host
  } catch {
    return undefined
  }
}

/**
 * The bounded fetch: waits for a slot of the URL's host (polling, until the deadline), then fetches; the wait for
 * the answer is given up at the deadline, while the slot stays taken until the request itself ends (the client's
 * own deadlines end it), so that a slow server never has more than its share of requests in flight.
 */
export function createBoundedFetch(fed: Federation, slots: HostSlots): BoundedFetch {
  return async (url, deadline) => {
    const host = hostOf(url)
    if (!host) throw new FetchError(`${url} is not a URL`)
    if (await isUrlBlocked(fed.db, url)) throw new FetchError(`${host} is suspended here`)
    const holder = randomUUID()
    for (;;) {
      if (Date.now() >= deadline) throw new FetchError(`no slot for ${host} before the deadline`)
      if (await slots.acquire(host, holder)) break
      await new Promise((r) => setTimeout(r, 100))
    }
    const request = fed.fetchJson(url)
    void request.catch(() => {}).finally(() => void slots.release(host, holder).catch(() => {}))
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new FetchError(`${url} did not answer before the deadline`)),
        deadline - Date.now(),
      )
    })
    try {
      return await Promise.race([request, late])
    } finally {
      clearTimeout(timer)
    }
  }
}

export interface WalkLimits {
  /** Pages fetched at most (the collection document itself not counted). */
  maxPages: number
  /** Items given at most. */
  maxItems: number
  /** When the walk stops, whatever it is doing (a Unix time in ms). */
  deadline: number
  /** The walk stops before the next page once this holds of the items read (enough of what is wanted). */
  enough?: (items: unknown[]) => boolean
}

const itemsOf = (c: Json): unknown[] => {
  const v = c.orderedItems ?? c.items
  return (Array.isArray(v) ? v : v ? [v] : []).slice(0, ITEMS_PER_PAGE)
}

/**
 * The items of a collection (given by URL or inline), then of its `first` page and the `next` pages, in order.
 * Pages are fetched only from the collection's own host; a page seen before (a loop) ends the walk, as do the
 * limits. A failure to fetch a page ends the walk with what was read; a failure to fetch the collection throws.
 */
export async function collectionItems(
  fetch: BoundedFetch,
  collection: unknown,
  limits: WalkLimits,
): Promise<unknown[]> {
  const start = typeof collection === 'string' ? await fetch(collection, limits.deadline) : collection
  if (!isJson(start)) return []
  const origin = typeof collection === 'string' ? hostOf(collection) : hostOf(String(start.id ?? ''))
  const items: unknown[] = []
  const seen = new Set<string>()
  if (typeof start.id === 'string') seen.add(start.id)
  const take = (page: Json) => {
    for (const item of itemsOf(page)) {
      if (items.length >= limits.maxItems) return
      items.push(item)
    }
  }
  take(start)
  let next: unknown = start.first
  for (let pages = 0; next && items.length < limits.maxItems && pages < limits.maxPages; pages++) {
    if (Date.now() >= limits.deadline || limits.enough?.(items)) break
    let page: Json | undefined
    if (isJson(next)) page = next
    else if (typeof next === 'string') {
      if (seen.has(next) || (origin && hostOf(next) !== origin)) break
      seen.add(next)
      try {
        page = await fetch(next, limits.deadline)
      } catch {
        break
      }
    }
    if (!page) break
    if (typeof page.id === 'string' && page !== start) seen.add(page.id)
    take(page)
    next = page.next
    if (isJson(next) && typeof next.id === 'string' && seen.has(next.id)) break
  }
  return items
}
