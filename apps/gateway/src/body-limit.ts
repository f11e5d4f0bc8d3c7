import type { Route } from '@roost/routes'
import type { GatewayConfig } from './config'
import type { Handler } from './route-index'

const TOO_LARGE = JSON.stringify({ error: 'The request is too large' })

/**
 * Refuses bodies over the route's limit with 413 without reading them: by the declared `Content-Length`
 * up front, and, for chunked bodies (no length), by counting bytes as they stream to the upstream service and
 * cutting the request when the count passes the limit. The services still parse with their own limits.
 */
export function bodyLimit(route: Route, config: GatewayConfig): Handler {
  // Routes that take file uploads (`body: 'upload'` in the table) get the larger limit.
  const limit = route.body === 'upload' ? config.GATEWAY_UPLOAD_BODY_LIMIT : config.GATEWAY_BODY_LIMIT
  return (req, res, next) => {
    const declared = req.headers['content-length']
    if (declared !== undefined) {
      if (Number(declared) > limit) {
        // Connection: close, so that the unread body is not taken for the next request.
        res.writeHead(413, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' })
        res.end(TOO_LARGE)
        return
      }
      return next() // node's parser never delivers more than the declared length
    }
    if (req.headers['transfer-encoding'] === undefined) return next()
    // Paused first, so that adding a listener does not start the flow before the proxy pipes the body.
    req.pause()
    let received = 0
    const count = (chunk: Buffer) => {
      received += chunk.length
      if (received <= limit) return
      req.off('data', count)
      req.unpipe()
      if (!res.headersSent) {
        res.writeHead(413, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' })
        res.end(TOO_LARGE)
      }
      // The socket goes once the answer is out; that also aborts the half-sent upstream request.
      res.once('finish', () => req.destroy())
      if (res.writableFinished) req.destroy()
    }
    req.on('data', count)
    next()
  }
}
