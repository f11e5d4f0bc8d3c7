import type { Request } from 'express'
import type { Urls } from '../entities/account'

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

/** MIME types of ActivityPub documents; either in `Accept` asks for JSON rather than a page. */
export const ACTIVITY_JSON = 'application/activity+json'
export const LD_JSON_ACTIVITYSTREAMS = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'

/**
 * Whether a request asks for the ActivityPub document rather than the HTML page: `application/activity+json`,
 * `application/ld+json` (Mastodon accepts it whatever its profile) or plain `application/json` preferred over
 * HTML, as Rails' content negotiation does for Mastodon's `format.json`.
 */
export function wantsActivityJson(req: Request): boolean {
  const accepted = req.accepts([
    'text/html',
    'application/activity+json',
    'application/ld+json',
    'application/json',
  ])
  return !!accepted && accepted !== 'text/html'
}
