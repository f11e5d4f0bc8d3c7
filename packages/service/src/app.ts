import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import express from 'express'
import qs from 'qs'
import type { ErrorRequestHandler, Express } from 'express'
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { DomainError } from '@roost/errors'
import { fromDomainError, HttpError, isUnavailable, notFound, serviceUnavailable } from './errors'
import type { Logger } from './logger'

export const REQUEST_ID_HEADER = 'x-request-id'

export interface AppOptions {
  logger: Logger
  metrics: Registry
  /** Checks `/health/ready` runs: each throws when its dependency does not answer. */
  readiness: Record<string, () => Promise<unknown>>
  /** false: no `/metrics` on this app (the gateway serves it on an internal port of its own). */
  serveMetrics?: boolean
  /** The request observer, when the process also answers requests outside the app (the gateway). */
  observe?: RequestObserver
}

/**
 * How often the event loop's delay is sampled for `nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds`:
 * prom-client's 10 ms woke every process 100 times a second, about 6 CPU-ms per second even idle, which the
 * gateway's CPU per request paid at any load (docs/performance.md, "Gateway" and "The push worker's own CPU, taken
 * apart"). The lag percentiles keep 150 samples a 15 s scrape.
 */
const EVENT_LOOP_SAMPLE_MS = 100

/** A registry per service instance, so several services can live in one process (tests) without clashing. */
export function createMetrics(service: string): Registry {
  const registry = new Registry()
  registry.setDefaultLabels({ service })
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS })
  return registry
}

/**
 * The express app every Roost process starts from: request ids, JSON logs, health and metrics endpoints.
 * Routes go on after this; `finishApp` adds the 404 and error handlers last.
 */
export function createApp({ logger, metrics, readiness, serveMetrics = true, observe }: AppOptions): Express {
  const app = express()
  app.disable('x-powered-by')
  // `id[]=1&id[]=2` → { id: ['1', '2'] }, as Rails reads it. qs turns more than `arrayLimit` (20 by default)
  // items into an object, so `?id[]=` with 21 ids would read as a malformed parameter instead of "too many ids".
  app.set('query parser', (query: string) => qs.parse(query, { arrayLimit: 1000 }))
  app.set('trust proxy', false)
  app.locals.logger = logger // the error handler's, for the 5xx it logs

  const observeRequest = observe ?? createRequestObserver(logger, metrics)
  app.use((req, res, next) => {
    observeRequest(req, res)
    next()
  })

  mountHealth(app, readiness)
  if (serveMetrics) mountMetrics(app, metrics)
  return app
}

/** What a process does with every request it answers: `createRequestObserver`. */
export type RequestObserver = (req: IncomingMessage, res: ServerResponse) => void

/**
 * Every request's id (the client's `X-Request-Id` if well-formed, else a new one; sent back, and on to the
 * services), its duration in `http_request_duration_seconds` by route and status, and its log line. The route is the
 * one express or the gateway matched (`req.route`), read when the answer is done.
 */
export function createRequestObserver(logger: Logger, metrics: Registry): RequestObserver {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [metrics],
  })
  return (req, res) => {
    const incoming = req.headers[REQUEST_ID_HEADER]
    const id = typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID()
    req.headers[REQUEST_ID_HEADER] = id
    res.setHeader('X-Request-Id', id)
    const started = performance.now()
    res.on('finish', () => {
      const seconds = (performance.now() - started) / 1000
      const { route, baseUrl } = req as { route?: { path?: string }; baseUrl?: string }
      const label = route?.path ? `${baseUrl ?? ''}${route.path}` : 'unmatched'
      duration.observe({ method: req.method, route: label, status: String(res.statusCode) }, seconds)
      logRequest(logger, req, res.statusCode, seconds)
    })
  }
}

function mountHealth(app: Express, readiness: AppOptions['readiness']) {
  app.get('/health/live', (_req, res) => {
    res.json({ status: 'ok' })
  })
  app.get('/health/ready', async (_req, res) => {
    const checks: Record<string, string> = {}
    let ready = true
    await Promise.all(
      Object.entries(readiness).map(async ([name, check]) => {
        try {
          await withTimeout(check(), 2000)
          checks[name] = 'ok'
        } catch (err) {
          ready = false
          checks[name] = err instanceof Error ? err.message : 'failed'
        }
      }),
    )
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks })
  })
}

function mountMetrics(app: Express, metrics: Registry) {
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.metrics())
  })
}

/**
 * An internal app with only `/metrics` and the health checks, for a process whose main port is public (the
 * gateway): Prometheus scrapes it on a port the outside cannot reach.
 */
export function createMetricsApp({ metrics, readiness }: Pick<AppOptions, 'metrics' | 'readiness'>): Express {
  const app = express()
  app.disable('x-powered-by')
  mountHealth(app, readiness)
  mountMetrics(app, metrics)
  return finishApp(app)
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/**
 * One line per answered request, at `info` (`error` for a 5xx); health checks and /metrics are not logged. The
 * line is built only when its level is on: at LOG_LEVEL=warn a request costs no logging at all (docs/operations.md).
 * An `access_token` in the query string (streaming URLs carry one) never reaches the log.
 */
function logRequest(logger: Logger, req: IncomingMessage, status: number, seconds: number) {
  const level = status >= 500 ? 'error' : 'info'
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/'
  if (!logger.isLevelEnabled(level) || url.startsWith('/health') || url === '/metrics') return
  // The shape pino-http gave these lines, which log pipelines may already parse.
  logger[level](
    {
      req: {
        id: req.headers[REQUEST_ID_HEADER],
        method: req.method,
        url: url.replace(/([?&]access_token=)[^&]*/g, '$1[redacted]'),
      },
      res: { statusCode: status },
      responseTime: Math.round(seconds * 1000),
    },
    'request completed',
  )
}

const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  sendError(res, err, req.app.locals.logger as Logger | undefined)
}

/**
 * The answer to a request that failed, Mastodon's shape: `{"error": …}` with the error's status and headers, not
 * cached unless its headers (or `headers`, a handler's own for this answer) say so; a 5xx is logged with the
 * request's id. Headers already set (CORS, the request id) go out with it.
 */
export function sendError(
  res: ServerResponse,
  err: unknown,
  logger?: Logger,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) return res.end()
  const error = toHttpError(err)
  if (error.status >= 500)
    logger?.error({ err, reqId: res.req?.headers[REQUEST_ID_HEADER] }, 'request failed')
  const body = JSON.stringify({ error: error.message, ...error.body })
  // Never cached, unless the error says otherwise (WebFinger's 404 may be cached for three minutes, as Mastodon's).
  res.writeHead(error.status, {
    'Cache-Control': 'no-store',
    ...error.headers,
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  })
  res.end(body)
}

/**
 * Postgres' "data exception" class (22…): a value it cannot take (an id beyond bigint, a NUL byte, a malformed
 * date). Handlers validate their input first; this is the net under them, so bad input is never a 500.
 */
const isDataException = (e: { code?: unknown; severity?: unknown }) =>
  typeof e.code === 'string' && /^22[0-9A-Z]{3}$/.test(e.code) && typeof e.severity === 'string'

/**
 * Maps domain, parser and library errors to the status a client should see: a domain error by its kind (the table
 * in errors.ts), Postgres or Redis out of reach is a 503 with Retry-After; everything unknown is a 500.
 */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err
  if (err instanceof DomainError) return fromDomainError(err)
  if (isUnavailable(err)) return serviceUnavailable()
  const e = err as { type?: string; status?: number; code?: string; name?: string; message?: string }
  if (isDataException(e))
    return new HttpError(400, 'A parameter has a value the server cannot store or compare')
  if (e?.type === 'entity.parse.failed') return new HttpError(400, 'The request body is not valid JSON')
  if (e?.type === 'entity.too.large' || e?.code === 'LIMIT_FILE_SIZE' || e?.code === 'LIMIT_FIELD_VALUE')
    return new HttpError(413, 'The request is too large')
  if (e?.name === 'MulterError') return new HttpError(422, `Invalid upload: ${e.message}`)
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500)
    return new HttpError(e.status, e.message || 'Bad request')
  return new HttpError(500, 'Internal server error')
}

/** One instance for every unmatched request: an Error captures its stack when made, and a 404 needs none. */
export const NOT_FOUND = notFound()

export function finishApp(app: Express): Express {
  app.use((_req, _res, next) => next(NOT_FOUND))
  app.use(errorHandler)
  return app
}
