import { permits } from '@roost/auth'
import type { Scope } from '@roost/auth'
import { channels } from '@roost/events'
import { HttpError } from '@roost/service'

/**
 * Mastodon's streams (docs/streaming.md): which channels each one listens to, the scope it needs, and the
 * streaming server's own error texts. Pure functions, shared by Server-Sent Events and WebSockets.
 */

export const STREAM_NAMES = [
  'user',
  'user:notification',
  'public',
  'public:media',
  'public:local',
  'public:local:media',
  'public:remote',
  'public:remote:media',
  'hashtag',
  'hashtag:local',
  'list',
  'direct',
] as const
export type StreamName = (typeof STREAM_NAMES)[number]

const isStreamName = (name: string): name is StreamName => (STREAM_NAMES as readonly string[]).includes(name)

/** The streaming server's errors: texts and statuses as Mastodon's (streaming/errors.js). */
export const streamErrors = {
  missingToken: () => new HttpError(401, 'Missing access token'),
  invalidToken: () => new HttpError(401, 'Invalid access token'),
  scopes: () => new HttpError(401, 'Access token does not have the required scopes'),
  list: () => new HttpError(401, 'Not authorized to stream this list'),
  unknownChannel: () => new HttpError(400, 'Unknown channel requested'),
  unknownStream: () => new HttpError(400, 'Unknown stream type'),
  missingTag: () => new HttpError(400, 'Missing tag name parameter'),
  missingList: () => new HttpError(400, 'Missing list name parameter'),
}

/** Who is streaming: from a verified user token. */
export interface Viewer {
  accountId: string
  userId: string
  tokenId: string
  scopes: string[]
}

/** A stream as one connection subscribed to it. */
export interface Stream {
  name: StreamName
  /** The Redis channels (unprefixed, Mastodon's names) it listens to. */
  channels: string[]
  /** `stream` in WebSocket messages: `[name]`, `['hashtag', tag as sent]` or `['list', id]`. */
  label: string[]
  /** Public and hashtag streams drop statuses of accounts the viewer blocks or mutes, or that block the viewer. */
  filtered: boolean
  /** For `list`: the list, whose ownership is checked before subscribing. */
  listId?: string
}

/** The scopes a stream accepts (any one; `read` grants both): `user:notification` needs notifications. */
export function scopesOf(name: string): Scope[] {
  return name === 'user:notification' ? ['read:notifications'] : ['read:statuses']
}

/** Mastodon's checkScopes: the token must hold `read`, or the stream's own scope. */
export function checkScopes(viewer: Viewer, name: string) {
  if (!permits(viewer.scopes, scopesOf(name))) throw streamErrors.scopes()
}

/** The first value of a parameter that may have been sent several times. */
export const firstParam = (value: unknown): string | undefined => {
  const first = Array.isArray(value) ? value[0] : value
  return typeof first === 'string' ? first : typeof first === 'number' ? String(first) : undefined
}

/**
 * The channels of a stream (Mastodon's channelNameToIds): an unknown name is "Unknown stream type", a hashtag
 * or list stream without its parameter a 400 of its own.
 */
export function resolveStream(
  viewer: Viewer,
  name: string,
  params: { tag?: unknown; list?: unknown },
): Stream {
  if (!isStreamName(name)) throw streamErrors.unknownStream()
  const plain = (streamChannels: string[], filtered = false): Stream => ({
    name,
    channels: streamChannels,
    label: [name],
    filtered,
  })
  switch (name) {
    case 'user': {
      const own = [channels.home(viewer.accountId)]
      // The notifications come along only for tokens that may read them.
      if (permits(viewer.scopes, ['read:notifications'])) own.push(channels.notifications(viewer.accountId))
      return plain(own)
    }
    case 'user:notification':
      return plain([channels.notifications(viewer.accountId)])
    case 'direct':
      return plain([channels.direct(viewer.accountId)])
    case 'hashtag':
    case 'hashtag:local': {
      const tag = firstParam(params.tag)
      if (!tag) throw streamErrors.missingTag()
      return {
        name,
        channels: [channels.hashtag(tag, { local: name === 'hashtag:local' })],
        label: [name, tag],
        filtered: true,
      }
    }
    case 'list': {
      const list = firstParam(params.list)
      if (!list) throw streamErrors.missingList()
      return { name, channels: [channels.list(list)], label: [name, list], filtered: false, listId: list }
    }
    default: {
      const [, scope, media] = name.split(':') as [string, string | undefined, string | undefined]
      return plain(
        [
          channels.public({
            local: scope === 'local',
            remote: scope === 'remote',
            media: scope === 'media' || media === 'media',
          }),
        ],
        true,
      )
    }
  }
}

/** The stream a Server-Sent Events path serves (Mastodon's channelNameFromPath). */
export function streamOfPath(path: string, onlyMedia: boolean | undefined): StreamName | undefined {
  const media = onlyMedia ? ':media' : ''
  switch (path.replace(/\/+$/, '')) {
    case '/api/v1/streaming/user':
      return 'user'
    case '/api/v1/streaming/user/notification':
      return 'user:notification'
    case '/api/v1/streaming/public':
      return `public${media}` as StreamName
    case '/api/v1/streaming/public/local':
      return `public:local${media}` as StreamName
    case '/api/v1/streaming/public/remote':
      return `public:remote${media}` as StreamName
    case '/api/v1/streaming/hashtag':
      return 'hashtag'
    case '/api/v1/streaming/hashtag/local':
      return 'hashtag:local'
    case '/api/v1/streaming/list':
      return 'list'
    case '/api/v1/streaming/direct':
      return 'direct'
    default:
      return undefined
  }
}
