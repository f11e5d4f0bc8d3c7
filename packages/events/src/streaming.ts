/**
 * The contract between the accounts worker, which publishes live events, and the streaming service, which
 * forwards them to clients (docs/streaming.md): Redis pub/sub channel names (Mastodon's), the message on them,
 * and the `subscribed:` keys by which the streaming service says which channels someone listens to.
 */

/** The events of Mastodon's streaming API. */
export const STREAMING_EVENTS = [
  'update',
  'status.update',
  'delete',
  'notification',
  'conversation',
  'filters_changed',
  'announcement',
  'announcement.reaction',
  'announcement.delete',
  'notifications_merged',
] as const
export type StreamingEvent = (typeof STREAMING_EVENTS)[number]

/**
 * One message on a channel. `payload` is already the string the client receives: an entity rendered as JSON
 * (for the receiving account on its own channels, anonymously on public and hashtag ones), or a bare id for
 * `delete`; none for `filters_changed` (Mastodon's has none). `exclude`, on public and hashtag channels, lists the accounts that must not receive it: those who
 * block or mute its author or an account it mentions, and those its author blocks (worked out by the publisher,
 * so the streaming service never reads the database).
 */
export interface StreamingMessage {
  event: StreamingEvent
  payload?: string
  exclude?: string[]
}

/** Mastodon's channel names, without the Redis prefix. */
export const channels = {
  home: (accountId: string) => `timeline:${accountId}`,
  notifications: (accountId: string) => `timeline:${accountId}:notifications`,
  public: (options: { local?: boolean; remote?: boolean; media?: boolean } = {}) =>
    `timeline:public${options.local ? ':local' : options.remote ? ':remote' : ''}${options.media ? ':media' : ''}`,
  hashtag: (tag: string, options: { local?: boolean } = {}) =>
    `timeline:hashtag:${normalizeHashtag(tag)}${options.local ? ':local' : ''}`,
  list: (listId: string) => `timeline:list:${listId}`,
  direct: (accountId: string) => `timeline:direct:${accountId}`,
}

/** The Redis pub/sub channel of a Mastodon channel name: prefixed like every Roost key. */
export const redisChannel = (redisPrefix: string, channel: string) => `${redisPrefix}:${channel}`

/**
 * Set by the streaming service while someone listens to `channel` (Mastodon's `subscribed:<channel>`), so the
 * publisher renders and publishes only for channels with listeners: an idle instance costs nothing.
 */
export const subscribedKey = (redisPrefix: string, channel: string) => `${redisPrefix}:subscribed:${channel}`
/** The key lives this long and is refreshed every SUBSCRIBED_REFRESH_S while the channel has listeners. */
export const SUBSCRIBED_TTL_S = 1080
export const SUBSCRIBED_REFRESH_S = 360

/**
 * A hashtag as both sides name its channel: NFKC, lower case, accented Latin letters folded to ASCII, and nothing but letters,
 * digits, `_`, `·` and the zero-width non-joiner kept (Mastodon's streaming server normalises the `tag` it is
 * given so).
 */
export function normalizeHashtag(tag: string): string {
  return tag
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u00c0-\u024f\u1e00-\u1eff]/g, (c) => c.normalize('NFKD').replace(/\p{M}/gu, ''))
    .replace(/[^\p{L}\p{N}_\u00b7\u200c]/gu, '')
}

/**
 * Who owns each list (a hash, list id → account id), kept by the accounts service (written as lists are made and
 * deleted, in full at start-up and after Redis lost its data), so the streaming service can tell a list's owner
 * without reading the database or asking with the viewer's token, whose scopes may not reach the lists API:
 * Mastodon lets any token with `read:statuses` stream its own lists.
 */
export const listOwnersKey = (redisPrefix: string) => `${redisPrefix}:list-owners`
