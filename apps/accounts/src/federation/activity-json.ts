import type { Response } from 'express'

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
  },
]

export const ACTIVITY_JSON_TYPE = 'application/activity+json; charset=utf-8'

/**
 * Answers an ActivityPub document. `publicFor` seconds of shared caching (Mastodon caches actors and collections
 * three minutes); 0 for pages and for answers to signed fetches in authorized-fetch mode, which depend on the
 * asker. `Vary: Accept` because the same URL serves HTML.
 */
export function sendActivityJson(res: Response, body: unknown, cache: { maxAge: number; shared: boolean }) {
  res
    .status(200)
    .set('Content-Type', ACTIVITY_JSON_TYPE)
    .set('Cache-Control', `max-age=${cache.maxAge}, ${cache.shared ? 'public' : 'private'}`)
    .set('Vary', 'Accept')
    .send(JSON.stringify(body))
}
