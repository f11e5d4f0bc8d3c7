import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Request, Response } from 'express'
import { Redis } from 'ioredis'
import { createRemoteJWKSet } from 'jose'
import { Counter, Gauge } from 'prom-client'
import { WebSocketServer } from 'ws'
import type { WebSocket } from 'ws'
import { createTokenVerifier, issuerOf, LoginRefusals, RevocationList, streamingToken } from '@roost/auth'
import {
  findRoute,
  hashtagStreamParams,
  listStreamParams,
  publicStreamParams,
  readParams,
  serviceRoutes,
  STREAMING_OTHER_PATHS,
  STREAMING_WEBSOCKET_PATH,
  streamParams,
  webSocketStreamParams,
} from '@roost/routes'
import type { RouteParams } from '@roost/routes'
import { listOwnersKey } from '@roost/events'
import {
  createApp,
  createLogger,
  createMetrics,
  finishApp,
  HttpError,
  lifecycle,
  parseJson,
} from '@roost/service'
import type { StreamingConfig } from './config'
import { createHub } from './hub'
import type { Delivery } from './hub'
import { Session } from './session'
import { checkScopes, firstParam, resolveStream, streamErrors, streamOfPath } from './streams'
import type { Stream, Viewer } from './streams'

/**
 * Mastodon's streaming API (docs/streaming.md): Server-Sent Events on the /api/v1/streaming/… paths and WebSockets
 * at /api/v1/streaming, fed by Redis pub/sub channels the accounts worker publishes to. Reads no database: the
 * token says who is streaming, the revocation list whether it still may, and the publisher has already rendered
 * the payloads and named who must not get them.
 */
export async function createStreamingService(config: StreamingConfig) {
  const logger = createLogger('streaming', config.LOG_LEVEL)
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: true })
  await redis.connect()
  const subscriber = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null, lazyConnect: true })
  await subscriber.connect()
  const revocations = new RevocationList(redis, config.REDIS_PREFIX)
  const logins = new LoginRefusals(redis, config.REDIS_PREFIX)
  const verify = createTokenVerifier({
    issuer: issuerOf(config.PUBLIC_URL),
    keys: createRemoteJWKSet(new URL('/oauth/jwks', config.ACCOUNTS_URL), { cooldownDuration: 30_000 }),
    revocations,
  })
  const metrics = createMetrics('streaming')
  const hub = createHub({ redis, subscriber, prefix: config.REDIS_PREFIX, logger, metrics })

  const sessions = new Set<Session>()
  const connected = new Gauge({
    name: 'streaming_connected_clients',
    help: 'Open streaming connections, by transport',
    labelNames: ['type'],
    registers: [metrics],
  })
  const sent = new Counter({
    name: 'streaming_messages_sent_total',
    help: 'Events sent to clients, by transport',
    labelNames: ['type'],
    registers: [metrics],
  })
  const dropped = new Counter({
    name: 'streaming_slow_clients_disconnected_total',
    help: 'Connections closed because the client read too slowly (STREAMING_MAX_BUFFERED_BYTES)',
    registers: [metrics],
  })

  /** Who is streaming, from the token wherever the request carries it; Mastodon's errors otherwise. */
  async function viewerOf(req: IncomingMessage): Promise<Viewer> {
    const raw = streamingToken(req)
    if (!raw) throw streamErrors.missingToken()
    const result = await verify(raw)
    // App tokens (no user) cannot stream, as in Mastodon; a revoked token reads as invalid there too, and so
    // does the token of a login that cannot be used (disabled, suspended, pending: the refusals accounts
    // publishes in Redis), where Mastodon's token query asks for an enabled user and an unsuspended account.
    if (!result.ok || !result.token.userId || !result.token.accountId) throw streamErrors.invalidToken()
    const { accountId, userId, tokenId, scopes } = result.token
    if (await logins.refusalOf(userId)) throw streamErrors.invalidToken()
    return { accountId, userId, tokenId, scopes }
  }

  /**
   * A list stream is the list owner's only: the owners accounts keeps in Redis say whose it is (any token that
   * may stream statuses may stream its own lists, as in Mastodon).
   */
  async function authorizeList(viewer: Viewer, stream: Stream) {
    if (!stream.listId) return
    if (!/^\d{1,19}$/.test(stream.listId)) throw streamErrors.list()
    const owner = await redis.hget(listOwnersKey(config.REDIS_PREFIX), stream.listId).catch(() => null)
    if (owner !== viewer.accountId) throw streamErrors.list()
  }

  /** Closes a session's connection when a message piles up behind a client that does not read. */
  const tooSlow = (buffered: number) => buffered > config.STREAMING_MAX_BUFFERED_BYTES

  // --- Server-Sent Events ---------------------------------------------------------------------------------

  const eventStreams = new Set<Response>()

  function serveEventStream(schema: RouteParams) {
    return async (req: Request, res: Response) => {
      const params = readParams(req, schema) as { only_media?: boolean; tag?: unknown; list?: unknown }
      const name = streamOfPath(req.path, params.only_media)
      if (!name) throw streamErrors.unknownChannel()
      const viewer = await viewerOf(req)
      checkScopes(viewer, name)
      const stream = resolveStream(viewer, name, params)
      await authorizeList(viewer, stream)

      const session: Session = new Session(
        viewer,
        hub,
        (delivery: Delivery) => {
          if (tooSlow(res.writableLength)) {
            dropped.inc()
            res.destroy()
            return
          }
          res.write(delivery.eventStream())
          sent.inc({ type: 'eventsource' })
        },
        () => res.end(),
      )
      sessions.add(session)
      connected.inc({ type: 'eventsource' })
      res.on('close', () => {
        session.close()
        sessions.delete(session)
        eventStreams.delete(res)
        connected.dec({ type: 'eventsource' })
      })
      res.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'private, no-store',
        'Transfer-Encoding': 'chunked',
        // nginx (the Kubernetes ingress) would otherwise buffer the stream.
        'X-Accel-Buffering': 'no',
      })
      res.flushHeaders()
      await session.subscribe(stream)
      // Mastodon opens with this comment; here it also says the subscription is live. Heartbeats only after it,
      // so the stream always begins with it however long the subscription took.
      if (res.writableEnded || res.destroyed) return
      res.write(':)\n')
      eventStreams.add(res)
    }
  }

  const heartbeat = setInterval(() => {
    for (const res of eventStreams) res.write(':thump\n\n')
  }, config.STREAMING_HEARTBEAT_INTERVAL_MS)

  // --- WebSockets --------------------------------------------------------------------------------------------

  // The first sub-protocol the client offers is echoed back (ws does so by default): masto.js and the web app
  // send the token there, and browsers drop a connection whose sub-protocol is not echoed.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 })
  const alive = new WeakSet<WebSocket>()
  const webSocketRoute = findRoute('GET', STREAMING_WEBSOCKET_PATH)!

  /** Answers a refused upgrade as Mastodon does: a bare status with the reason in `X-Error-Message`. */
  function refuseUpgrade(socket: Duplex, error: HttpError) {
    const status = error.status
    const reason = { 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found' }[status] ?? 'Error'
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n` +
        `X-Error-Message: ${error.message}\r\n\r\n`,
    )
  }

  function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    socket.on('error', (err) => logger.debug({ err }, 'upgrade socket error'))
    const url = new URL(req.url ?? '/', 'http://streaming.invalid')
    if (
      url.pathname !== STREAMING_WEBSOCKET_PATH &&
      !url.pathname.startsWith(`${STREAMING_WEBSOCKET_PATH}/`)
    ) {
      refuseUpgrade(socket, new HttpError(404, 'Not Found'))
      return
    }
    viewerOf(req).then(
      (viewer) =>
        wss.handleUpgrade(req, socket, head, (ws) => {
          const query = Object.fromEntries(url.searchParams)
          // The table's schema for /api/v1/streaming reads the query, as every route's parameters are read.
          const params = readParams(
            Object.assign(req, { apiRoute: webSocketRoute, query, body: undefined }) as unknown as Request,
            webSocketStreamParams,
          )
          onWebSocket(ws, viewer, params)
        }),
      (err: unknown) => {
        refuseUpgrade(
          socket,
          err instanceof HttpError ? err : new HttpError(500, 'An unexpected error occurred'),
        )
        if (!(err instanceof HttpError)) logger.error({ err }, 'upgrade failed')
      },
    )
  }

  function onWebSocket(
    ws: WebSocket,
    viewer: Viewer,
    query: { stream?: unknown; tag?: unknown; list?: unknown },
  ) {
    alive.add(ws)
    connected.inc({ type: 'websocket' })
    const session = new Session(
      viewer,
      hub,
      (delivery: Delivery, stream: Stream) => {
        if (ws.readyState !== ws.OPEN) return
        if (tooSlow(ws.bufferedAmount)) {
          dropped.inc()
          ws.terminate()
          return
        }
        ws.send(delivery.frame(stream.label))
        sent.inc({ type: 'websocket' })
      },
      () => ws.close(),
    )
    sessions.add(session)
    const sendError = (err: unknown) => {
      const error = err instanceof HttpError ? err : new HttpError(500, 'An unexpected error occurred')
      if (!(err instanceof HttpError)) logger.error({ err }, 'subscription failed')
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ error: error.message, status: error.status }))
    }
    const subscribe = async (name: string | undefined, params: { tag?: unknown; list?: unknown }) => {
      checkScopes(viewer, name ?? '')
      const stream = resolveStream(viewer, name ?? '', params)
      if (session.has(stream)) return
      await authorizeList(viewer, stream)
      await session.subscribe(stream)
    }

    ws.on('pong', () => alive.add(ws))
    ws.on('error', (err) => logger.debug({ err }, 'websocket error'))
    ws.on('close', () => {
      session.close()
      sessions.delete(session)
      connected.dec({ type: 'websocket' })
    })
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        ws.close(1003, 'The mastodon streaming server does not support binary messages')
        return
      }
      let message: { type?: unknown; stream?: unknown; tag?: unknown; list?: unknown }
      try {
        // As request bodies: a list id sent as a JSON number beyond 2^53 arrives as its exact text.
        message = parseJson(data.toString('utf8')) as typeof message
      } catch {
        return // Mastodon ignores what it cannot parse
      }
      if (typeof message !== 'object' || message === null) return
      const name = firstParam(message.stream)
      if (message.type === 'subscribe') subscribe(name, message).catch(sendError)
      else if (message.type === 'unsubscribe') {
        try {
          session.unsubscribe(resolveStream(viewer, name ?? '', message))
        } catch {
          if (ws.readyState === ws.OPEN)
            ws.send(JSON.stringify({ error: 'Error unsubscribing from channel' }))
        }
      }
    })

    const initial = firstParam(query.stream)
    if (initial) subscribe(initial, query).catch(sendError)
  }

  const pings = setInterval(() => {
    for (const ws of wss.clients) {
      if (!alive.has(ws)) {
        ws.terminate()
        continue
      }
      alive.delete(ws)
      ws.ping()
    }
  }, config.STREAMING_PING_INTERVAL_MS)

  // --- Revocation: the streams of a revoked token, or of a login that can no longer be used (disabled,
  // suspended), close within STREAMING_REVOCATION_CHECK_MS ---------------------------------------------------

  /** Ends the sessions of the ids `among` answers for, asking a thousand ids at a time. */
  async function endAmong(key: (session: Session) => string, among: (ids: string[]) => Promise<Set<string>>) {
    const byKey = new Map<string, Session[]>()
    for (const session of sessions) {
      const list = byKey.get(key(session)) ?? []
      list.push(session)
      byKey.set(key(session), list)
    }
    const ids = [...byKey.keys()]
    for (let i = 0; i < ids.length; i += 1000)
      for (const id of await among(ids.slice(i, i + 1000)))
        for (const session of byKey.get(id)!) session.end()
  }

  let checking = false
  const revocationCheck = setInterval(async () => {
    if (checking || !sessions.size) return
    checking = true
    try {
      await endAmong(
        (session) => session.viewer.tokenId,
        (ids) => revocations.revokedAmong(ids),
      )
      await endAmong(
        (session) => session.viewer.userId,
        (ids) => logins.refusedAmong(ids),
      )
    } catch (err) {
      logger.warn({ err }, 'could not check the open streams’ tokens')
    } finally {
      checking = false
    }
  }, config.STREAMING_REVOCATION_CHECK_MS)

  // --- HTTP --------------------------------------------------------------------------------------------------

  const app = createApp({ logger, metrics, readiness: { redis: () => redis.ping() } })
  const api = serviceRoutes('streaming', verify)
  api.get('/api/v1/streaming/health', (_req, res) => {
    res.set({ 'Content-Type': 'text/plain', 'Cache-Control': 'private, no-store' }).send('OK')
  })
  // A plain GET of the WebSocket path names no stream: the streaming server's 400.
  api.get(STREAMING_WEBSOCKET_PATH, () => {
    throw streamErrors.unknownChannel()
  })
  api.get('/api/v1/streaming/user', serveEventStream(streamParams))
  api.get('/api/v1/streaming/user/notification', serveEventStream(streamParams))
  api.get('/api/v1/streaming/public', serveEventStream(publicStreamParams))
  api.get('/api/v1/streaming/public/local', serveEventStream(publicStreamParams))
  api.get('/api/v1/streaming/public/remote', serveEventStream(publicStreamParams))
  api.get('/api/v1/streaming/hashtag', serveEventStream(hashtagStreamParams))
  api.get('/api/v1/streaming/hashtag/local', serveEventStream(hashtagStreamParams))
  api.get('/api/v1/streaming/list', serveEventStream(listStreamParams))
  api.get('/api/v1/streaming/direct', serveEventStream(streamParams))
  // Any other path below /api/v1/streaming: Mastodon's streaming server names no channel for it (a 400 before
  // the token is looked at).
  api.get(STREAMING_OTHER_PATHS, () => {
    throw streamErrors.unknownChannel()
  })
  api.mount(app)
  finishApp(app)

  const service = lifecycle({
    app,
    logger,
    host: config.BIND_HOST,
    onUpgrade,
    async beforeClose() {
      // Clients reconnect (through the gateway, to another replica) when their stream ends.
      for (const ws of wss.clients) ws.close(1001, 'The server is shutting down')
      for (const session of sessions) session.end()
      const deadline = Date.now() + 2000
      while (wss.clients.size && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20))
      for (const ws of wss.clients) ws.terminate()
    },
    async close() {
      clearInterval(heartbeat)
      clearInterval(pings)
      clearInterval(revocationCheck)
      hub.close()
      wss.close()
      await subscriber.quit().catch(() => subscriber.disconnect())
      await redis.quit().catch(() => redis.disconnect())
    },
  })
  return Object.assign(service, { routes: api.routes, metrics, hub, sessions: () => sessions.size })
}

export type StreamingService = Awaited<ReturnType<typeof createStreamingService>>
