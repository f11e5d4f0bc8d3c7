import { z } from 'zod'
import { param } from '../params'

/**
 * The streaming API (docs/streaming.md). The streaming service reads the token itself (the route's access is
 * `stream`), from `Authorization`, this parameter, or the WebSocket sub-protocol.
 */
const accessToken = {
  access_token: param.checkedByHandler({
    type: 'string',
    description: 'The access token, for clients that cannot send an Authorization header',
  }),
}
const onlyMedia = { only_media: param.bool() }
// Missing ones are a 400 with the streaming server's own text ("Missing tag name parameter"), so the handler
// checks them.
const tag = { tag: param.checkedByHandler({ type: 'string', description: 'The hashtag, without #' }) }
const list = { list: param.checkedByHandler({ type: 'string', description: 'The id of one of your lists' }) }

/** GET /api/v1/streaming/user, /user/notification, /direct */
export const streamParams = z.object(accessToken)
/** GET /api/v1/streaming/public, /public/local, /public/remote */
export const publicStreamParams = z.object({ ...accessToken, ...onlyMedia })
/** GET /api/v1/streaming/hashtag, /hashtag/local */
export const hashtagStreamParams = z.object({ ...accessToken, ...tag })
/** GET /api/v1/streaming/list */
export const listStreamParams = z.object({ ...accessToken, ...list })
/** GET /api/v1/streaming with `Upgrade: websocket`: `stream` (with `tag` or `list`) subscribes at once. */
export const webSocketStreamParams = z.object({
  ...accessToken,
  stream: param.checkedByHandler({
    type: 'string',
    description: 'A stream to subscribe to at once: user, user:notification, public, public:local, …',
  }),
  ...tag,
  ...list,
})
