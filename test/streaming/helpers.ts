import http from 'node:http'
import { WebSocket } from 'ws'
import type { Stack } from '../stack'

/** What arrives on a stream, in order: events, and (event streams only) comments such as `:thump`. */
export interface Received {
  event?: string
  payload?: string
  stream?: string[]
  error?: string
  status?: number
  comment?: string
}

/** A queue of what a connection received, with a wait for the next item that matches. */
export class Inbox<T = Received> {
  readonly items: T[] = []
  private waiters: { match: (r: T) => boolean; resolve: (r: T) => void }[] = []
  private taken = new Set<T>()

  push(item: T) {
    this.items.push(item)
    for (const waiter of [...this.waiters])
      if (waiter.match(item) && !this.taken.has(item)) {
        this.taken.add(item)
        this.waiters.splice(this.waiters.indexOf(waiter), 1)
        waiter.resolve(item)
        return
      }
  }

  /**
   * The first item not taken yet that matches (already there or still to come), or a failure after `ms`:
   * generous, since a loaded machine can take seconds; speed is measured by `npm run bench`, not asserted here.
   */
  next(match: (r: T) => boolean = () => true, ms = 30_000): Promise<T> {
    const there = this.items.find((item) => !this.taken.has(item) && match(item))
    if (there) {
      this.taken.add(there)
      return Promise.resolve(there)
    }
    return new Promise((resolve, reject) => {
      const waiter = { match, resolve }
      this.waiters.push(waiter)
      setTimeout(() => {
        if (!this.waiters.includes(waiter)) return
        this.waiters.splice(this.waiters.indexOf(waiter), 1)
        reject(new Error(`nothing matching arrived within ${ms} ms; got ${JSON.stringify(this.items)}`))
      }, ms)
    })
  }

  events = (name?: string) =>
    this.items.filter((i) => {
      const event = (i as { event?: unknown }).event
      return event && (!name || event === name)
    })
}

/** A WebSocket to the streaming API (through the gateway unless `base` says otherwise). */
export async function openSocket(
  stack: Stack,
  query = '',
  options: { protocols?: string[]; headers?: Record<string, string>; base?: string; autoPong?: boolean } = {},
) {
  const base = (options.base ?? stack.url).replace(/^http/, 'ws')
  const ws = new WebSocket(`${base}/api/v1/streaming${query}`, options.protocols ?? [], {
    headers: options.headers,
    autoPong: options.autoPong ?? true,
  })
  const inbox = new Inbox()
  const closed = new Promise<{ code: number; at: number }>((resolve) =>
    ws.on('close', (code) => resolve({ code, at: Date.now() })),
  )
  ws.on('message', (data) => inbox.push(JSON.parse(data.toString())))
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  return {
    ws,
    inbox,
    closed,
    send: (message: object) => ws.send(JSON.stringify(message)),
    close: () => {
      ws.terminate()
      return closed
    },
  }
}
export type TestSocket = Awaited<ReturnType<typeof openSocket>>

/** A refused upgrade: its status and headers (the reason is in `x-error-message`). */
export function refusedUpgrade(
  stack: Stack,
  query = '',
  options: { protocols?: string[]; headers?: Record<string, string>; base?: string; path?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const base = (options.base ?? stack.url).replace(/^http/, 'ws')
  const ws = new WebSocket(`${base}${options.path ?? '/api/v1/streaming'}${query}`, options.protocols ?? [], {
    headers: options.headers,
  })
  return new Promise((resolve, reject) => {
    ws.on('open', () => reject(new Error('the upgrade was accepted')))
    ws.on('error', () => {})
    ws.on('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
  })
}

/** A Server-Sent Events stream; resolves once the answer's headers are in (and, on a 200, the `:)` comment). */
export function openEventStream(
  stack: Stack,
  path: string,
  headers: Record<string, string> = {},
  base?: string,
) {
  const url = new URL(path, base ?? stack.url)
  return new Promise<{
    status: number
    headers: http.IncomingHttpHeaders
    body: () => string
    inbox: Inbox
    ended: Promise<number>
    close: () => void
  }>((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      const inbox = new Inbox()
      let body = ''
      let buffer = ''
      let ready = false
      const ended = new Promise<number>((done) => res.on('close', () => done(Date.now())))
      const answer = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: () => body,
        inbox,
        ended,
        close: () => req.destroy(),
      }
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
        if (res.statusCode !== 200) return
        buffer += chunk
        // Comments end at their line; events at a blank line.
        for (;;) {
          if (buffer.startsWith(':')) {
            const end = buffer.indexOf('\n')
            if (end < 0) break
            inbox.push({ comment: buffer.slice(1, end) })
            buffer = buffer.slice(end + 1).replace(/^\n/, '')
            if (!ready) {
              ready = true
              resolve(answer)
            }
            continue
          }
          const end = buffer.indexOf('\n\n')
          if (end < 0) break
          const lines = buffer.slice(0, end).split('\n')
          buffer = buffer.slice(end + 2)
          const field = (name: string) => lines.find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2)
          inbox.push({ event: field('event'), payload: field('data') })
        }
      })
      res.on('end', () => {
        if (!ready) resolve(answer)
      })
      if (res.statusCode !== 200) res.on('end', () => resolve(answer))
    })
    req.on('error', reject)
  })
}
export type TestEventStream = Awaited<ReturnType<typeof openEventStream>>
