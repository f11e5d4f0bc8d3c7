import http, { STATUS_CODES } from 'node:http'
import type { IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { createRemoteJWKSet } from 'jose'
import { Redis } from 'ioredis'
import {
  authenticate,
  CachedRevocations,
  CLIENT_ADDRESS_HEADER,
  CLIENT_ADDRESS_SIGNATURE_HEADER,
  createTokenVerifier,
  issuerOf,
  presentedToken,
  RevocationList,
  TOKEN_CHECKED_HEADER,
} from '@roost/auth'
import { findRoute, openApiDocument, ROUTES, STREAMING_WEBSOCKET_PATH } from '@roost/routes'
import type { Route, Upstream } from '@roost/routes'
import {
  createApp,
  createLogger,
  createMetricsApp,
  createMetrics,
  createRequestObserver,
  finishApp,
  HttpError,
  lifecycle,
  NOT_FOUND,
  notFound,
  sendError,
  toHttpError,
} from '@roost/service'
import { bodyLimit } from './body-limit'
import { createClientAddressResolver } from './client-address'
import { isCorsPath, mountCors, setSimpleCorsHeaders } from './cors'
import { upstreamUrls } from './config'
import type { GatewayConfig } from './config'
import { createIpRules } from './ip-rules'
import { mountBullBoard } from './bull-board'
import { createProxy } from './proxy'
import { createRateLimiter, rateLimitHeaders } from './rate-limit'
import { createRouteIndex, runHandlers } from './route-index'
import type { Handler } from './route-index'
import { createHeaderSigners } from './signed-headers'
import { webHandlers } from './web'

/**
 * The gateway: the only public entry. Every request: client address and `no_access` IP rules; then, for each
 * route of the table, the body limit, the token (verified once), rate limits, the token's verdict and scopes,
 * sign-up IP rules, and the proxy to the route's service; anything not in the table is a 404.
 */
export async function createGateway(config: GatewayConfig) {
  const logger = createLogger('gateway', config.LOG_LEVEL)
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: true })
  await redis.connect()
  // The revocation list's answers, remembered while Redis tracks the list for this gateway (docs/security.md,
  // "Revocation verdicts in memory"), on a connection of its own that ends up subscribed.
  const revocations = new CachedRevocations(
    new RevocationList(redis, config.REDIS_PREFIX),
    new Redis(config.REDIS_URL, { lazyConnect: true, autoResubscribe: false, maxRetriesPerRequest: 2 }),
    (err) => logger.error({ err }, 'could not track the revocation list; asking Redis on every request'),
  )
  await revocations.start()
  // jose caches the key set and refetches it when a token names an unknown `kid` (at most every 30 s).
  const keys = createRemoteJWKSet(new URL('/oauth/jwks', upstreamUrls(config.ACCOUNTS_URL)[0]), {
    cacheMaxAge: 10 * 60_000,
    cooldownDuration: 30_000,
    timeoutDuration: 5_000,
  })
  const verify = createTokenVerifier({ issuer: issuerOf(config.PUBLIC_URL), keys, revocations })
  const clientAddress = createClientAddressResolver(config.TRUSTED_PROXIES)
  const sign = createHeaderSigners(config.GATEWAY_SECRET)
  const ipRules = createIpRules(redis, config.REDIS_PREFIX, logger)
  const rateLimiter = createRateLimiter(redis, config, logger)

  const upstreams: Record<Exclude<Upstream, 'gateway'>, ReturnType<typeof createProxy>> = {
    accounts: createProxy(upstreamUrls(config.ACCOUNTS_URL), config.GATEWAY_UPSTREAM_SOCKETS, logger),
    push: createProxy(upstreamUrls(config.PUSH_URL), config.GATEWAY_UPSTREAM_SOCKETS, logger),
    streaming: createProxy(upstreamUrls(config.STREAMING_URL), config.GATEWAY_UPSTREAM_SOCKETS, logger, {
      streams: true,
    }),
  }

  const metrics = createMetrics('gateway')
  const readiness = { redis: () => redis.ping() }
  const observe = createRequestObserver(logger, metrics)
  // /metrics is for Prometheus, not for the public: it goes on an internal port (GATEWAY_METRICS_PORT), as the
  // workers' metrics do, together with the health checks.
  const app = createApp({ logger, metrics, readiness, serveMetrics: false, observe })
  const internal = createMetricsApp({ metrics, readiness })
  let internalServer: http.Server | undefined
  let internalUrl = ''

  /**
   * Before anything else: the resolved client address replaces whatever the client sent in the header the services
   * read, signed with GATEWAY_SECRET (the services believe the header only with a valid signature,
   * docs/security.md), and `no_access` IP rules refuse. Their 403 is JSON like every other Roost error (Mastodon
   * sends text/plain "Forbidden\n"; clients treat both as a 403, and JSON lets them show the `error`). Returns the
   * address.
   */
  async function admit(req: IncomingMessage): Promise<string> {
    const address = clientAddress(req)
    req.headers[CLIENT_ADDRESS_HEADER] = address
    req.headers[CLIENT_ADDRESS_SIGNATURE_HEADER] = sign.address(address)
    delete req.headers[TOKEN_CHECKED_HEADER] // only the gateway's own, set once it has checked the token
    if (await ipRules.isDenied(address)) throw new HttpError(403, 'Forbidden')
    return address
  }
  mountCors(app) // first, so that every answer on the API paths carries the CORS headers, errors included
  app.use(async (req, _res, next) => {
    await admit(req)
    next()
  })

  const board = mountBullBoard(app, { config, verify, logger }) // before the route table: not a public API route
  const openApi = openApiDocument(config.PUBLIC_URL)
  const own: Record<string, Handler> = {
    '/api/openapi.json': (_req, res) => {
      const body = JSON.stringify(openApi)
      res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
      })
      res.end(body)
    },
    ...webHandlers(),
  }
  const routeOf = createRouteIndex(
    ROUTES.map((route) => {
      const families = rateLimiter.familiesFor(route)
      const guard: Handler = async (req, res, next) => {
        const address = req.headers[CLIENT_ADDRESS_HEADER] as string
        // No family to count (RATE_LIMITS=off, or a route outside them): the verdict alone, no promises to settle.
        const token = families.length
          ? await authenticateAndCount(req, res, address)
          : await authenticate(route, req, verify)
        // The services then verify the token's signature and scopes again, but need not look it up in the
        // revocation list again (docs/security.md, "Tokens the gateway checked").
        if (token) req.headers[TOKEN_CHECKED_HEADER] = sign.tokenChecked(token.tokenId)
        // Mastodon checks sign_up_block in the sign-up controller, after the token.
        if (route.signUp && (await ipRules.isSignUpBlocked(address))) throw new HttpError(403, 'Forbidden')
        next()
      }
      // Rate limits count before the token's verdict (as Rack::Attack runs before Doorkeeper), so requests
      // with bad tokens still spend the address's budget; the token is verified once.
      //
      // The revocation check, when the gateway does not remember the answer (CachedRevocations), and the rate
      // limit count are one Redis round trip, not two in a row (docs/performance.md, "Gateway"): the count starts
      // with the token whose signature is good (checked in memory, cached) while its revocation is being checked;
      // when the verdict then refuses that token (revoked, outside its scopes), the request is counted again as a
      // request without a valid token, by its address, as it always was.
      async function authenticateAndCount(req: IncomingMessage, res: http.ServerResponse, address: string) {
        const raw = presentedToken(route, req)
        const signed = raw ? await verify.signatureOnly(raw).catch(() => undefined) : undefined
        const settle = <T>(p: Promise<T>) =>
          p.then(
            (value) => ({ value, error: undefined }),
            (error: unknown) => ({ value: undefined, error }),
          )
        const [verdict, counted] = await Promise.all([
          settle(authenticate(route, req, verify)),
          settle(rateLimiter.hit(families, { address, token: signed })),
        ])
        const token = verdict.value
        const limited =
          signed && token?.tokenId !== signed.tokenId
            ? await settle(rateLimiter.hit(families, { address, token }))
            : counted
        if (limited.error) throw limited.error
        if (limited.value)
          for (const [name, value] of Object.entries(rateLimitHeaders(limited.value)))
            res.setHeader(name, value)
        if (verdict.error) throw verdict.error
        return token
      }
      const answer = route.upstream === 'gateway' ? own[route.path] : upstreams[route.upstream].middleware
      if (!answer) throw new Error(`The gateway has no handler for its route ${route.method} ${route.path}`)
      return { route, value: [bodyLimit(route, config), guard, answer] }
    }),
  )
  app.use((req, res, next) => {
    const found = routeOf(req.method, req.path)
    if (!found) return next()
    req.route = found.route // what express sets: the request metrics' route label (packages/service/src/app.ts)
    runHandlers(found.value, req, res, next)
  })
  finishApp(app)

  /**
   * Every request comes here first. A route of the table that goes to a service is answered without express, in
   * the same steps express takes for it (request id and metrics, CORS, `admit`, the route's handlers): express's own
   * work per request, its router and the objects it dresses each request in, was half the gateway's CPU
   * (docs/performance.md, "Gateway"). Everything else goes to the express app: the gateway's own routes, Bull Board,
   * CORS preflights, a request in absolute form, anything not in the table (its 404).
   */
  function handle(req: IncomingMessage, res: http.ServerResponse) {
    const url = req.url ?? ''
    const query = url.indexOf('?')
    const path = query === -1 ? url : url.slice(0, query)
    const found = path.startsWith('/') ? routeOf(req.method ?? '', path) : undefined
    if (!found || found.route.upstream === 'gateway') return app(req, res)
    observe(req, res)
    ;(req as IncomingMessage & { route: Route }).route = found.route // the metrics' route label, as express's
    const failed = (err?: unknown) => sendError(res, err ?? NOT_FOUND, logger)
    if (isCorsPath(path)) setSimpleCorsHeaders(res)
    admit(req).then(() => runHandlers(found.value, req, res, failed), failed)
  }

  const webSocketRoute = findRoute('GET', STREAMING_WEBSOCKET_PATH)!
  const webSocketFamilies = rateLimiter.familiesFor(webSocketRoute)
  /**
   * WebSocket upgrades (Mastodon's streaming API at /api/v1/streaming, and any path below it): IP rules and rate
   * limits as for the route's requests, then the upgrade goes to the streaming service, which checks the token
   * (from the header, `access_token` or the sub-protocol) and answers a refusal itself. Anything else is a 404.
   */
  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    socket.on('error', (err) => logger.debug({ err }, 'upgrade socket error'))
    try {
      const { pathname } = new URL(req.url ?? '/', 'http://gateway.invalid')
      if (pathname !== STREAMING_WEBSOCKET_PATH && !pathname.startsWith(`${STREAMING_WEBSOCKET_PATH}/`))
        throw notFound()
      const address = await admit(req) // no token-checked header follows: streaming checks the token itself
      const token = await authenticate(webSocketRoute, req, verify)
      await rateLimiter.hit(webSocketFamilies, { address, token })
    } catch (err) {
      const error = toHttpError(err)
      const body = JSON.stringify({ error: error.message })
      const headers = Object.entries(error.headers).map(([k, v]) => `${k}: ${v}\r\n`)
      socket.end(
        `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\nConnection: close\r\n` +
          `Content-Type: application/json; charset=utf-8\r\n${headers.join('')}` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      )
      return
    }
    upstreams.streaming.upgrade(req, socket, head)
  }

  const service = lifecycle({
    app: handle as unknown as typeof app,
    logger,
    host: config.BIND_HOST,
    onUpgrade: (req, socket, head) => void onUpgrade(req, socket, head),
    // Slow clients (slowloris): all headers within GATEWAY_HEADERS_TIMEOUT_MS, the whole request within
    // GATEWAY_REQUEST_TIMEOUT_MS, else 408 and the socket closes; checked every second.
    serverOptions: {
      headersTimeout: config.GATEWAY_HEADERS_TIMEOUT_MS,
      requestTimeout: config.GATEWAY_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: 1000,
    },
    async afterStart() {
      internalServer = http.createServer(internal)
      await new Promise<void>((resolve, reject) => {
        internalServer!.once('error', reject)
        internalServer!.listen(config.GATEWAY_METRICS_PORT, config.BIND_HOST, resolve)
      })
      internalUrl = `http://${config.BIND_HOST}:${(internalServer.address() as AddressInfo).port}`
    },
    async close() {
      if (internalServer) {
        const closed = new Promise((resolve) => internalServer!.close(resolve))
        internalServer.closeAllConnections()
        await closed
      }
      for (const upstream of Object.values(upstreams)) upstream.close()
      await board.close()
      await revocations.close()
      await redis.quit().catch(() => redis.disconnect()) // quit, not disconnect: no 2 s timer left behind
    },
  })
  // Object.assign keeps `url` a live getter (a spread would copy it before start()); `metricsUrl` is the
  // internal server of /metrics and the health checks, once started.
  const gateway = Object.assign(service, { app })
  Object.defineProperty(gateway, 'metricsUrl', { get: () => internalUrl })
  return gateway as typeof gateway & { readonly metricsUrl: string }
}
