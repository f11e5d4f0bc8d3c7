import http from 'node:http'
import type { Duplex } from 'node:stream'
import httpProxy from 'http-proxy'
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
 *
 * `http-proxy` itself, one proxy per target with its options fixed, as bench/proxy-baseline.ts drives it:
 * http-proxy-middleware, which the gateway used before, parsed the request's URL and the target's again on every
 * request and copied its options twice, in a chain of promises (docs/performance.md, "Gateway").
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
  const proxies = targets.map((target) => {
    const proxy = httpProxy.createProxyServer({
      target,
      agent,
      xfwd: true,
      ...(options.streams ? {} : { proxyTimeout: 30_000 }),
    })
    proxy.on('error', (err, _req, res) => {
      logger.error({ err, target }, 'upstream failed')
      if (res instanceof http.ServerResponse) {
        if (res.headersSent) return void res.end()
        const unavailable = serviceUnavailable()
        res.writeHead(unavailable.status, {
          'Content-Type': 'application/json; charset=utf-8',
          ...unavailable.headers,
        })
        res.end(JSON.stringify({ error: unavailable.message }))
      } else (res as Duplex).destroy() // a WebSocket upgrade: the client's socket itself
    })
    // An upstream response whose client went away is ended too (an event stream would run on otherwise).
    proxy.on('proxyRes', (proxyRes, _req, res) => {
      res.on('close', () => {
        if (!res.writableEnded) proxyRes.destroy()
      })
    })
    // A WebSocket's sockets: an error on either after the upgrade must not take the process down.
    proxy.on('proxyReqWs', (_proxyReq, _req, socket) => socket.on('error', () => {}))
    proxy.on('open', (proxySocket) => proxySocket.on('error', () => {}))
    return proxy
  })
  let next = 0
  const pick = () => (proxies.length === 1 ? proxies[0]! : proxies[next++ % proxies.length]!)
  return {
    middleware: ((req, res) => pick().web(req, res)) as Handler,
    upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => pick().ws(req, socket, head),
    close: () => {
      for (const proxy of proxies) proxy.close()
      agent.destroy()
    },
  }
}
