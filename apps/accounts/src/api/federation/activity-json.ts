import type { Response } from 'express'
import type { AccountRow } from '../../entities/account'

/** The JSON-LD contexts Roost's documents use, as Mastodon's (its ActivityPub::Adapter). */
export const AS = 'https://www.w3.org/ns/activitystreams'
export const SECURITY = 'https://w3id.org/security/v1'
export const PUBLIC_COLLECTION = 'https://www.w3.org/ns/activitystreams#Public'

export const ACTOR_CONTEXT = [
  AS,
  SECURITY,
  {
    manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
    toot: 'http://joinmastodon.org/ns#',
    featured: { '@id': 'toot:featured', '@type': '@id' },
    alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' },
    movedTo: { '@id': 'as:movedTo', '@type': '@id' },
    schema: 'http://schema.org#',
    PropertyValue: 'schema:PropertyValue',
    value: 'schema:value',
    discoverable: 'toot:discoverable',
    suspended: 'toot:suspended',
    memorial: 'toot:memorial',
    indexable: 'toot:indexable',
  },
]

export const NOTE_CONTEXT = [
  AS,
  {
    sensitive: 'as:sensitive',
    Hashtag: 'as:Hashtag',
    toot: 'http://joinmastodon.org/ns#',
    blurhash: 'toot:blurhash',
    votersCount: 'toot:votersCount',
  },
]

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
