import http from 'node:http'
import https from 'node:https'
import type { AddressGuard } from './address-guard'
import { createAddressGuard } from './address-guard'

/**
 * Requests to other servers, the one HTTP client of every outgoing request: federation's documents and deliveries,
 * remote media and Web Push (docs/federation.md, "Outgoing requests"; docs/architecture.md). Each process makes one
 * and sends everything through its one pool of keep-alive connections, per origin. Every new connection goes to an
 * address the guard resolves and vets as the connection opens (so a second DNS answer cannot swap in a private one,
 * and a request on a kept-alive connection makes no DNS query), connecting and answering have deadlines, and an
 * answer larger than `maxBytes` is cut off. Redirects are not followed (a 3xx is answered as such).
 */
export interface OutboundOptions {
  /** CIDRs of private addresses that may be reached anyway (development and tests). */
  allowedPrivateAddresses?: string
  /** The address guard to use instead of one made from `allowedPrivateAddresses`. */
  guard?: AddressGuard
  /** `http://` URLs are refused unless this is set (development and tests). */
  allowHttp?: boolean
  connectTimeoutMs?: number
  requestTimeoutMs?: number
  maxBytes?: number
  socketsPerOrigin?: number
  userAgent?: string
}

/** What one request asks beyond the client's defaults. */
export interface OutboundRequestOptions {
  /** The largest answer this request takes (remote media are larger than documents). */
  maxBytes?: number
  /** This request's answering deadline (the longest silence). */
  timeoutMs?: number
  /** The whole request's deadline, answer included (four times `timeoutMs` unless told). */
  deadlineMs?: number
  /** The answer's body is not wanted (a push service's): it is read to the end, whatever its size, and dropped. */
  discardBody?: boolean
}

export interface OutboundResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
}

export class OutboundError extends Error {}

const EMPTY = Buffer.alloc(0)

export function createOutboundClient(options: OutboundOptions = {}) {
  const guard: AddressGuard = options.guard ?? createAddressGuard(options.allowedPrivateAddresses ?? '')
  const agents = new Map<string, http.Agent>()
  const agentFor = (url: URL) => {
    let agent = agents.get(url.origin)
    if (!agent) {
      const o = { keepAlive: true, maxSockets: options.socketsPerOrigin ?? 16 }
      agent = url.protocol === 'https:' ? new https.Agent(o) : new http.Agent(o)
      agents.set(url.origin, agent)
    }
    return agent
  }

  async function request(
    method: 'GET' | 'POST' | 'HEAD',
    target: string | URL,
    headers: Record<string, string | number> = {},
    body?: Buffer | string,
    per: OutboundRequestOptions = {},
  ): Promise<OutboundResponse> {
    const url = typeof target === 'string' ? new URL(target) : target
    const maxBytes = per.maxBytes ?? options.maxBytes ?? 1024 * 1024
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && options.allowHttp))
      throw new OutboundError(`${url.protocol} URLs are not allowed (${url.origin})`)
    await guard.vetLiteral(url.hostname)
    const client = url.protocol === 'https:' ? https : http
    return new Promise((resolve, reject) => {
      const req = client.request(
        {
          method,
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          headers: { 'User-Agent': options.userAgent ?? 'Roost', ...headers },
          agent: agentFor(url),
          lookup: guard.lookup, // a new connection goes to a vetted address; a kept-alive one looks nothing up
          timeout: per.timeoutMs ?? options.requestTimeoutMs ?? 10_000,
        },
        (res) => {
          res.on('close', () => clearTimeout(whole))
          if (per.discardBody) {
            res.resume() // read, so that the socket goes back to the pool
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: EMPTY }))
            res.on('error', reject)
            return
          }
          const declared = Number(res.headers['content-length'])
          if (declared > maxBytes) {
            res.destroy()
            return reject(new OutboundError(`The answer of ${url.origin} is too large`))
          }
          const chunks: Buffer[] = []
          let size = 0
          res.on('data', (chunk: Buffer) => {
            size += chunk.length
            if (size > maxBytes) {
              res.destroy()
              reject(new OutboundError(`The answer of ${url.origin} is too large`))
            } else chunks.push(chunk)
          })
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          )
          res.on('error', reject)
        },
      )
      req.on('timeout', () => req.destroy(new OutboundError(`${url.origin} did not answer in time`)))
      // The idle timeout above is per silence; a server trickling a byte now and then is ended by the whole
      // request's deadline (four idle timeouts), so that no request lasts for ever.
      const idle = per.timeoutMs ?? options.requestTimeoutMs ?? 10_000
      const whole = setTimeout(
        () => req.destroy(new OutboundError(`${url.origin} took too long to answer`)),
        per.deadlineMs ?? 4 * idle,
      )
      whole.unref()
      req.on('close', () => clearTimeout(whole))
      req.on('socket', (socket) => {
        if (!socket.connecting) return
        const timer = setTimeout(
          () => req.destroy(new OutboundError(`Could not connect to ${url.origin} in time`)),
          options.connectTimeoutMs ?? 5_000,
        )
        socket.once('connect', () => clearTimeout(timer))
        socket.once('close', () => clearTimeout(timer))
      })
      req.on('error', reject)
      req.end(body)
    })
  }

  return {
    request,
    close() {
      for (const agent of agents.values()) agent.destroy()
      agents.clear()
    },
  }
}
export type OutboundClient = ReturnType<typeof createOutboundClient>
