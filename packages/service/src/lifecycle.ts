import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { Express } from 'express'
import type { Logger } from './logger'
import { createLogger } from './logger'

export interface RunningService {
  /** Listens on `port` (0 picks a free one) and resolves with the bound port. */
  start(port?: number): Promise<number>
  /** Stops accepting, lets in-flight requests finish, then runs `close`. Safe to call twice. */
  stop(): Promise<void>
  readonly url: string
}

/** The create → start → stop life of an HTTP service; `close` releases pools, queues and workers. */
export function lifecycle(options: {
  app: Express
  logger: Logger
  host: string
  /** Node server options, e.g. the gateway's `headersTimeout` and `requestTimeout`. */
  serverOptions?: http.ServerOptions
  close: () => Promise<void>
  /** Work to do after listening (workers, relays), stopped by `close`. */
  afterStart?: () => Promise<void> | void
  /** Requests to switch protocols (WebSocket): the gateway proxies them, the streaming service accepts them. */
  onUpgrade?: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void
  /**
   * Run as stopping begins, once no new connection is accepted: ends long-lived responses and sockets (event
   * streams, WebSockets) that would otherwise hold the server open until the 10 s cut-off.
   */
  beforeClose?: () => Promise<void> | void
}): RunningService {
  const { host } = options
  let server: http.Server | undefined
  const upgraded = new Set<Duplex>()
  let stopping: Promise<void> | undefined
  let url = ''
  return {
    get url() {
      return url
    },
    async start(port = 0) {
      server = http.createServer(options.serverOptions ?? {}, options.app)
      server.on('clientError', answerClientError)
      const { onUpgrade } = options
      if (onUpgrade)
        server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
          upgraded.add(socket)
          socket.once('close', () => upgraded.delete(socket))
          onUpgrade(req, socket, head)
        })
      server.keepAliveTimeout = 65_000 // longer than the gateway's idle sockets, so a pooled socket is never cut mid-request
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject)
        server!.listen(port, host, resolve)
      })
      const bound = (server.address() as AddressInfo).port
      url = `http://${host}:${bound}`
      await options.afterStart?.()
      options.logger.info({ url }, 'listening')
      return bound
    },
    stop() {
      stopping ??= (async () => {
        if (server) {
          const closed = new Promise<void>((resolve) => server!.close(() => resolve()))
          await options.beforeClose?.()
          // Upgraded connections (WebSockets) never finish by themselves, and closeAllConnections() does not
          // reach them: whatever beforeClose left open is cut now.
          for (const socket of upgraded) socket.destroy()
          server.closeIdleConnections()
          const force = setTimeout(() => server!.closeAllConnections(), 10_000)
          await closed
          clearTimeout(force)
        }
        await options.close()
        options.logger.info('stopped')
      })()
      return stopping
    },
  }
}

/** For `main.ts`: stop cleanly on SIGTERM/SIGINT, exit non-zero if stopping fails. */
/**
 * A process's whole entry point (each app's main.ts): reads its configuration from the environment once, creates the
 * service, starts it on its port and stops it gracefully on SIGTERM or SIGINT. A failure to start exits with 1.
 */
export function runProcess<Config extends { LOG_LEVEL: string }>(
  name: string,
  load: (env: NodeJS.ProcessEnv) => Config,
  create: (config: Config) => Promise<{ start(port: number): Promise<unknown>; stop(): Promise<void> }>,
  port: (config: Config) => number,
): void {
  const main = async () => {
    const config = load(process.env)
    const service = await create(config)
    await service.start(port(config))
    stopOnSignals(service.stop, createLogger(name, config.LOG_LEVEL))
  }
  main().catch((err) => {
    console.error(err)
    process.exit(1)
  })
}

export function stopOnSignals(stop: () => Promise<void>, logger: Logger): void {
  const onSignal = (signal: string) => {
    logger.info({ signal }, 'shutting down')
    stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', onSignal)
  process.once('SIGINT', onSignal)
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'The request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request took too long to arrive'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Payload Too Large', 'The request is too large'],
}

/**
 * Requests node's HTTP parser refuses before any handler runs (headers too large, malformed HTTP, too slow):
 * node answers them with an empty body; Roost answers `{"error": …}` like every other error.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex) {
  const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return socket.destroy()
  const [status, reason, message] = CLIENT_ERRORS[err.code ?? ''] ?? [
    400,
    'Bad Request',
    'The request is not valid HTTP',
  ]
  const body = JSON.stringify({ error: message })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}
