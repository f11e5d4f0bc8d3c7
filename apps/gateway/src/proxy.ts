import http from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { createProxyMiddleware, debugProxyErrorsPlugin } from 'http-proxy-middleware'
import type { Plugin } from 'http-proxy-middleware'
import { serviceUnavailable } from '@roost/service'
import type { Logger } from '@roost/service'
import type { Handler } from './route-index'

/**
 * Forwards a request unchanged (body unread, `Authorization` kept) over a pooled keep-alive connection.
 * An upstream that does not answer becomes a Mastodon-style 503.
 *
 * `streams`: the upstream answers with long-lived event streams and takes WebSocket upgrades (the streaming
 * service): no answer timeout, a socket per open stream however many there are, and `upgrade` to proxy an
 * upgrade request. Responses are piped through as they come, never buffered.
 *
 * Several `targets` (copies of one service) are taken in turn, one request or stream each (docs/operations.md,
 * "Several copies of each process").
 */
export function createProxy(
  targets: string[],
  sockets: number,
  logger: Logger,
  options: { streams?: boolean } = {},
) {
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: options.streams ? Infinity : sockets,
    maxFreeSockets: sockets,
    keepAliveMsecs: 1000,
  })
  // Our own plugins instead of the library's defaults: its logger plugin built a URL and a log line for every
  // response only to hand them to a no-op `info` (1.6 % of the gateway's CPU in a profile), and logged each upstream
  // failure a second time. `debugProxyErrorsPlugin` stays: it ends an upstream response whose client went away.
  const answerFailure: Plugin = (proxyServer) => {
    proxyServer.on('error', (err, _req, res) => {
      logger.error({ err, targets }, 'upstream failed')
      const out = res as http.ServerResponse
      if ('headersSent' in out && !out.headersSent) {
        const unavailable = serviceUnavailable()
        out.writeHead(unavailable.status, {
          'Content-Type': 'application/json; charset=utf-8',
          ...unavailable.headers,
        })
        out.end(JSON.stringify({ error: unavailable.message }))
      } else if ('destroy' in out && !('headersSent' in out)) {
        // A WebSocket upgrade: the client's socket itself.
        ;(out as unknown as Duplex).destroy()
      } else out.end()
    })
  }
  const target = targets[0]!
  let next = 0
  const middleware = createProxyMiddleware({
    target,
    ...(targets.length > 1 ? { router: () => targets[next++ % targets.length]! } : {}),
    agent,
    xfwd: true,
    ...(options.streams ? {} : { proxyTimeout: 30_000 }),
    logger: { info: () => {}, warn: (m: unknown) => logger.warn(m), error: (m: unknown) => logger.error(m) },
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, answerFailure],
  })
  return {
    middleware: middleware as unknown as Handler,
    upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) =>
      middleware.upgrade(req, socket as Socket, head),
    close: () => agent.destroy(),
  }
}
