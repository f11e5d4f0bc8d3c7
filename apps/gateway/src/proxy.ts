import http from 'node:http'
import type { RequestHandler } from 'express'
import { createProxyMiddleware } from 'http-proxy-middleware'
import { serviceUnavailable } from '@roost/service'
import type { Logger } from '@roost/service'

/**
 * Forwards a request unchanged (body unread, `Authorization` kept) over a pooled keep-alive connection.
 * An upstream that does not answer becomes a Mastodon-style 503.
 */
export function createProxy(target: string, sockets: number, logger: Logger) {
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: sockets,
    maxFreeSockets: sockets,
    keepAliveMsecs: 1000,
  })
  const middleware = createProxyMiddleware({
    target,
    agent,
    xfwd: true,
    proxyTimeout: 30_000,
    logger: { info: () => {}, warn: (m: unknown) => logger.warn(m), error: (m: unknown) => logger.error(m) },
    on: {
      error(err, _req, res) {
        logger.error({ err, target }, 'upstream failed')
        const out = res as http.ServerResponse
        if ('headersSent' in out && !out.headersSent) {
          const unavailable = serviceUnavailable()
          out.writeHead(unavailable.status, {
            'Content-Type': 'application/json; charset=utf-8',
            ...unavailable.headers,
          })
          out.end(JSON.stringify({ error: unavailable.message }))
        } else out.end()
      },
    },
  }) as RequestHandler
  return { middleware, close: () => agent.destroy() }
}
