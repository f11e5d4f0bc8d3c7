import type { Request } from 'express'
import type { AccountRow, Urls } from '../entities/account'

/**
 * The URLs of local actors and their objects, as Mastodon lays them out (its ActivityPub::TagManager), so that
 * peers and people find the same addresses on Roost (docs/federation.md, "Addresses").
 */
export const actorUri = (urls: Urls, username: string) => `${urls.base}/users/${username}`
export const profileUrl = (urls: Urls, username: string) => `${urls.base}/@${username}`
export const statusUri = (urls: Urls, username: string, statusId: string) =>
  `${actorUri(urls, username)}/statuses/${statusId}`
export const statusUrl = (urls: Urls, username: string, statusId: string) =>
  `${profileUrl(urls, username)}/${statusId}`
export const sharedInboxUri = (urls: Urls) => `${urls.base}/inbox`
/** The instance actor (Mastodon's `/actor`): signs fetches made on behalf of the server itself. */
export const instanceActorUri = (urls: Urls) => `${urls.base}/actor`

/** Any account's ActivityPub id: a remote one's own, else ours. */
export const actorUriOf = (urls: Urls, a: Pick<AccountRow, 'username' | 'uri'>) =>
  a.uri ?? actorUri(urls, a.username)
/** Any account's followers collection. */
export const followersUriOf = (
  urls: Urls,
  a: Pick<AccountRow, 'username' | 'uri' | 'followers_url' | 'domain'>,
) => (a.domain ? (a.followers_url ?? `${a.uri}/followers`) : `${actorUri(urls, a.username)}/followers`)
/** `user` for local accounts, `user@domain` for remote ones (the Account entity's `acct`). */
export const acctOf = (a: Pick<AccountRow, 'username' | 'domain'>) =>
  a.domain ? `${a.username}@${a.domain}` : a.username

/** MIME types of ActivityPub documents; either in `Accept` asks for JSON rather than a page. */
export const ACTIVITY_JSON = 'application/activity+json'
export const LD_JSON_ACTIVITYSTREAMS = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'

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
