import { createECDH, randomBytes } from 'node:crypto'
import type { ECDH } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { decrypt } from 'http_ece'
import { importJWK, jwtVerify } from 'jose'

/** What a browser hands the server when it subscribes: an ECDH P-256 key pair and a 16-byte auth secret. */
export function createSubscriberKeys() {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  return { ecdh, p256dh: ecdh.getPublicKey('base64url'), auth: randomBytes(16).toString('base64url') }
}
export type SubscriberKeys = ReturnType<typeof createSubscriberKeys>

/**
 * One answer of the fake push service: a status and headers (e.g. `{ status: 429, headers: { 'Retry-After': '1' } }`),
 * or `{ hang: true }`: the message is read and never answered (the connection stays open until the sender gives up).
 */
export type Answer = { status: number; headers?: Record<string, string>; hang?: false } | { hang: true }

/** A push message the receiver accepted as well-formed: decrypted and with a valid VAPID signature. */
export interface ReceivedPush {
  endpoint: string
  at: number
  encoding: string
  /** The decrypted plaintext, parsed as JSON. */
  payload: Record<string, unknown>
  headers: http.IncomingHttpHeaders
  vapid: { aud: string; exp: number; sub: string }
  /** What the receiver answered. */
  status: number
}

interface Subscriber {
  keys: SubscriberKeys
  answers: Answer[]
}

const VAPID_MAX_LIFETIME_SECONDS = 24 * 3600

/**
 * A local HTTP server that plays a push service (RFC 8030) for tests. Every request is checked the way a real
 * push service and browser would: the VAPID JWT (ES256, `aud` = this origin, `exp` at most 24 h ahead, `sub`)
 * must verify against the server's VAPID public key, and the body must decrypt (aes128gcm per RFC 8291, or
 * legacy aesgcm) with the subscriber's private key and auth secret. Answers are scripted per endpoint; once the
 * script runs out, every message gets 201.
 */
export async function startPushReceiver(options: {
  vapidPublicKey: string
  /** Every answer waits this long (a push service's latency), so a sender that dies meanwhile gets none. */
  delayMs?: number
}) {
  const subscribers = new Map<string, Subscriber>()
  const received: ReceivedPush[] = []
  const attempts: { endpoint: string; at: number }[] = []
  const problems: string[] = []
  /** Messages that decrypted but were never accepted: hung on purpose, or their sender gone before the answer. */
  const unanswered: {
    endpoint: string
    at: number
    payload: Record<string, unknown>
    why: 'hung' | 'gone'
  }[] = []
  let connections = 0
  /** While held (`hold()`), answers wait here until `release()`. */
  let held: (() => void)[] | undefined

  async function check(path: string, req: http.IncomingMessage, body: Buffer) {
    const subscriber = subscribers.get(path)
    if (!subscriber) throw new Error(`no subscriber at ${path}`)
    const encoding = String(req.headers['content-encoding'] ?? '')
    const authorization = String(req.headers.authorization ?? '')
    let jwt: string
    let key: string
    if (encoding === 'aes128gcm') {
      const match = /^vapid\s+t=([^,\s]+),\s*k=([^,\s]+)$/i.exec(authorization)
      if (!match) throw new Error(`bad Authorization for aes128gcm: ${authorization}`)
      ;[, jwt, key] = match as unknown as [string, string, string]
    } else if (encoding === 'aesgcm') {
      const match = /^WebPush\s+(\S+)$/i.exec(authorization)
      const k = /p256ecdsa=([^;,\s]+)/.exec(String(req.headers['crypto-key'] ?? ''))
      if (!match || !k) throw new Error('bad Authorization or Crypto-Key for aesgcm')
      jwt = match[1]!
      key = k[1]!
    } else throw new Error(`unknown Content-Encoding ${encoding}`)
    if (key.replace(/=+$/, '') !== options.vapidPublicKey.replace(/=+$/, ''))
      throw new Error('VAPID key is not the server key')
    const point = Buffer.from(key, 'base64url')
    const publicKey = await importJWK(
      {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33, 65).toString('base64url'),
      },
      'ES256',
    )
    const { payload: claims } = await jwtVerify(jwt, publicKey, { algorithms: ['ES256'], audience: origin })
    const exp = Number(claims.exp)
    if (!(exp - Date.now() / 1000 <= VAPID_MAX_LIFETIME_SECONDS))
      throw new Error('VAPID exp more than 24 h ahead')
    if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub))
      throw new Error('bad VAPID sub')
    for (const header of ['ttl', 'urgency'])
      if (!req.headers[header]) throw new Error(`missing ${header} header`)

    const params =
      encoding === 'aes128gcm'
        ? { version: encoding, privateKey: subscriber.keys.ecdh, authSecret: subscriber.keys.auth }
        : {
            version: encoding,
            privateKey: subscriber.keys.ecdh,
            authSecret: subscriber.keys.auth,
            dh: /dh=([^;,\s]+)/.exec(String(req.headers['crypto-key']))?.[1],
            salt: /salt=([^;,\s]+)/.exec(String(req.headers.encryption ?? ''))?.[1],
          }
    const plaintext = decrypt(body, params)
    return {
      subscriber,
      encoding,
      payload: JSON.parse(plaintext.toString('utf8')) as Record<string, unknown>,
      vapid: { aud: String(claims.aud), exp, sub: claims.sub },
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const path = req.url ?? ''
      attempts.push({ endpoint: `${origin}${path}`, at: Date.now() })
      check(path, req, Buffer.concat(chunks)).then(
        (message) => {
          const answer = message.subscriber.answers.shift() ?? { status: 201 }
          const endpoint = `${origin}${path}`
          if (answer.hang) {
            unanswered.push({ endpoint, at: Date.now(), payload: message.payload, why: 'hung' })
            return
          }
          const respond = () => {
            // A sender that died or gave up before the answer never learns of it: not accepted. (An HTTP client
            // never half-closes, so a socket whose other end has ended is a sender gone.)
            if (res.destroyed || req.socket.destroyed || ended.has(req.socket)) {
              unanswered.push({ endpoint, at: Date.now(), payload: message.payload, why: 'gone' })
              return
            }
            received.push({
              endpoint,
              at: Date.now(),
              encoding: message.encoding,
              payload: message.payload,
              headers: req.headers,
              vapid: message.vapid,
              status: answer.status,
            })
            res.writeHead(answer.status, answer.headers).end()
          }
          // setImmediate: after the poll phase, so a FIN that arrived while the answer waited is seen first.
          const answerNow = () => (held ? held.push(respond) : setImmediate(respond))
          if (options.delayMs) setTimeout(answerNow, options.delayMs)
          else if (held) held.push(respond)
          else respond()
        },
        (err: Error) => {
          problems.push(`${path}: ${err.message}`)
          res.writeHead(400).end(err.message)
        },
      )
    })
  })
  const ended = new WeakSet<object>()
  server.on('connection', (socket) => {
    connections++
    socket.once('end', () => ended.add(socket))
    socket.once('close', () => ended.add(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    origin,
    /** Every accepted message, in arrival order. */
    received,
    /** Every request, accepted or not. */
    attempts,
    /** Messages read but never answered (`{ hang: true }`, or the sender gone before `delayMs` passed). */
    unanswered,
    /** Why requests were refused (bad VAPID, undecryptable body…); tests expect it empty. */
    problems,
    /** Messages being held (`delayMs`) or hung right now: a sender killed now leaves them unanswered. */
    get pending() {
      return attempts.length - received.length - unanswered.length - problems.length
    },
    /** Answers nothing until `release()`: the messages arriving meanwhile wait (to kill their sender then). */
    hold() {
      held ??= []
    },
    /** Answers what `hold()` kept back, to the senders still there, and answers at once again. */
    release() {
      const waiting = held ?? []
      held = undefined
      for (const respond of waiting) setImmediate(respond)
    },
    /** TCP connections opened to the receiver. */
    get connections() {
      return connections
    },
    /** A new subscriber: keys and an endpoint on this receiver, answering `answers` first, then 201. */
    subscriber(answers: Answer[] = []) {
      const keys = createSubscriberKeys()
      const path = `/push/${randomBytes(8).toString('hex')}`
      subscribers.set(path, { keys, answers: [...answers] })
      return {
        endpoint: `${origin}${path}`,
        keys: { p256dh: keys.p256dh, auth: keys.auth },
        ecdh: keys.ecdh as ECDH,
      }
    },
    /** The messages accepted for one endpoint. */
    messagesFor(endpoint: string) {
      return received.filter((m) => m.endpoint === endpoint)
    },
    /** Polls until `condition` holds, or fails after `timeoutMs`. */
    async waitFor(condition: () => boolean, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      while (!condition()) {
        if (Date.now() > deadline)
          throw new Error(
            `push receiver: condition not met in ${timeoutMs} ms (problems: ${problems.join('; ')})`,
          )
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    },
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
export type PushReceiver = Awaited<ReturnType<typeof startPushReceiver>>
