import type { Urls } from '../entities/account'
import type { AccountRow, StatusRow } from '../db/rows'

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
/** A status's ActivityPub id: a remote one's own, else ours. */
export const objectUriOf = (urls: Urls, status: Pick<StatusRow, 'id' | 'uri'>, author: AccountRow) =>
  status.uri ?? statusUri(urls, author.username, status.id)
