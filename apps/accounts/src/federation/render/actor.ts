import type { Urls } from '../../entities/account'
import type { AccountRow } from '../../db/rows'
import { mediaUrl } from '../../entities/account'
import { fieldValueHtml, textToHtml } from '../../text/html'
import { ACTOR_CONTEXT, PUBLIC_COLLECTION } from './contexts'
import { emojiTag } from './emoji'
import { actorUri, instanceActorUri, profileUrl, sharedInboxUri } from '../uris'

/** Local accounts as ActivityPub actors (docs/federation.md, "Actors and keys"), built from their row and key. */

const MEDIA_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
}
const image = (urls: Urls, file: string | null) =>
  file
    ? {
        type: 'Image',
        mediaType: MEDIA_TYPES[file.split('.').pop()!] ?? 'image/png',
        url: mediaUrl(urls, file),
      }
    : undefined

const midnight = (d: Date) =>
  new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())).toISOString().replace('.000Z', 'Z')

/** Mastodon's ActorSerializer for a local account; a suspended one keeps its key and shows nothing else. */
export function renderActor(
  account: AccountRow,
  publicKey: string,
  urls: Urls,
  localDomain: string,
  /** The ActivityPub id of the account it moved to (docs/federation.md, "Moved accounts"). */
  movedTo?: string,
) {
  const id = actorUri(urls, account.username)
  const suspended = !!account.suspended_at
  const icon = suspended ? undefined : image(urls, account.avatar_file)
  const header = suspended ? undefined : image(urls, account.header_file)
  return {
    '@context': ACTOR_CONTEXT,
    id,
    type: account.bot ? 'Service' : 'Person',
    following: `${id}/following`,
    followers: `${id}/followers`,
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    featured: `${id}/collections/featured`,
    preferredUsername: account.username,
    name: suspended ? account.username : account.display_name || account.username,
    summary: suspended ? '' : textToHtml(account.note),
    url: profileUrl(urls, account.username),
    manuallyApprovesFollowers: suspended ? false : account.locked,
    discoverable: suspended ? false : account.discoverable,
    indexable: suspended ? false : account.indexable,
    published: midnight(new Date(account.created_at)),
    memorial: false,
    webfinger: `${account.username}@${localDomain}`,
    publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: publicKey },
    tag: suspended ? [] : (account.emojis ?? []).map((e) => emojiTag(urls, e)),
    attachment: suspended
      ? []
      : account.fields.map((f) => ({ type: 'PropertyValue', name: f.name, value: fieldValueHtml(f.value) })),
    endpoints: { sharedInbox: sharedInboxUri(urls) },
    ...(icon ? { icon } : {}),
    ...(header ? { image: header } : {}),
    ...(suspended ? { suspended: true } : {}),
    // Aliases and a move away (docs/federation.md, "Moved accounts").
    ...(account.also_known_as?.length ? { alsoKnownAs: account.also_known_as } : {}),
    ...(movedTo ? { movedTo } : {}),
  }
}

/**
 * The instance actor (`/actor`, an Application named after the domain, as Mastodon's), whose key signs the fetches
 * the server makes for itself.
 */
export function renderInstanceActor(urls: Urls, localDomain: string, publicKey: string) {
  const id = instanceActorUri(urls)
  return {
    '@context': ACTOR_CONTEXT,
    id,
    type: 'Application',
    inbox: sharedInboxUri(urls),
    outbox: `${id}/outbox`,
    preferredUsername: localDomain,
    url: `${urls.base}/about/more?instance_actor=true`,
    manuallyApprovesFollowers: true,
    publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: publicKey },
    endpoints: { sharedInbox: sharedInboxUri(urls) },
  }
}

/**
 * The Update of a local account's actor, as served, that its followers' servers receive when its profile changes
 * (Mastodon's UpdateDistributionWorker), named after the profile's version.
 */
export function renderActorUpdate(actor: ReturnType<typeof renderActor>, version: number) {
  const { '@context': context, ...object } = actor
  return {
    '@context': context,
    id: `${actor.id}#updates/${version}`,
    type: 'Update',
    actor: actor.id,
    to: [PUBLIC_COLLECTION],
    object,
  }
}
