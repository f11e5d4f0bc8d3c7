import type { Request, Response } from 'express'
import type { AccountRow } from '../../db/rows'

/** How secure mode (AUTHORIZED_FETCH, authorized-fetch.ts) saw the request being answered. */
export interface SignedFetch {
  /** Secure mode is on for this answer. */
  on: boolean
  /** The remote account whose key signed the GET, when it did and verified. */
  account?: AccountRow
}

/** Set on the response by `authorizedFetch`; off when it did not run. */
export const signedFetchOf = (res: Response): SignedFetch => res.locals.signedFetch ?? { on: false }

export const ACTIVITY_JSON_TYPE = 'application/activity+json; charset=utf-8'

/**
 * Answers an ActivityPub document. `publicFor` seconds of shared caching (Mastodon caches actors and collections
 * three minutes); 0 for pages and for answers to signed fetches in authorized-fetch mode, which depend on the
 * asker. `Vary: Accept` because the same URL serves HTML.
 */
export function sendActivityJson(res: Response, body: unknown, cache: { maxAge: number; shared: boolean }) {
  const signedFetch = signedFetchOf(res)
  const shared = cache.shared && !signedFetch.account
  res
    .status(200)
    .set('Content-Type', ACTIVITY_JSON_TYPE)
    .set('Cache-Control', `max-age=${cache.maxAge}, ${shared ? 'public' : 'private'}`)
    .set('Vary', signedFetch.on ? 'Accept, Signature' : 'Accept')
    .send(JSON.stringify(body))
}

/**
 * Whether a request asks for the ActivityPub document rather than the HTML page: `application/activity+json`,
 * `application/ld+json` (Mastodon accepts it whatever its profile) or plain `application/json` preferred over
 * HTML, as Rails' content negotiation does for Mastodon's `format.json`.
 */
export function wantsActivityJson(req: Request): boolean {
  // Parsed here rather than with req.accepts: its negotiator matches `application/ld+json; profile="…"` only
  // against an offer with the very same profile.
  let html = 0
  let json = 0
  for (const part of (req.get('Accept') ?? '').split(',')) {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase())
    const q = params.find((p) => p.startsWith('q='))
    const weight = q ? Number(q.slice(2)) || 0 : 1
    if (JSON_TYPES.has(type)) json = Math.max(json, weight)
    else if (type === 'text/html') html = Math.max(html, weight)
  }
  return json > 0 && json >= html
}

const JSON_TYPES = new Set(['application/activity+json', 'application/ld+json', 'application/json'])
