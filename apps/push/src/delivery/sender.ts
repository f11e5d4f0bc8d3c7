import http from 'node:http'
import https from 'node:https'
import webpush from 'web-push'
import type { PushConfig } from '../config'
import type { SubscriptionRow } from '../subscriptions/store'
import type { AddressGuard } from '@roost/service'

/** Mastodon's push TTL and the age after which a notification is no longer worth pushing (48 h). */
export const PUSH_TTL_SECONDS = 48 * 3600

/** A VAPID JWT lives 12 h (RFC 8292 allows 24 h); it is re-signed once less than an hour remains. */
const VAPID_LIFETIME_SECONDS = 12 * 3600
const VAPID_RENEW_BEFORE_SECONDS = 3600

export interface PushResponse {
  status: number
  headers: http.IncomingHttpHeaders
}

type Encoding = 'aes128gcm' | 'aesgcm'

/**
 * Sends encrypted pushes. `web-push` only builds the request (encryption, headers): its own sender always speaks
 * https, opens a connection per message and re-signs VAPID every time. Here the VAPID headers are cached per
 * push-service origin, requests go through a keep-alive agent per origin, and every new connection goes to an
 * address the guard has just resolved and vetted (a push on a kept-alive connection makes no DNS query).
 */
export function createPushSender(config: PushConfig, guard: AddressGuard) {
  const vapid = new Map<string, { headers: Record<string, string>; renewAt: number }>()
  const agents = new Map<string, http.Agent>()

  function vapidHeaders(origin: string, encoding: Encoding): Record<string, string> {
    const key = `${encoding} ${origin}`
    const now = Math.floor(Date.now() / 1000)
    const cached = vapid.get(key)
    if (cached && cached.renewAt > now) return cached.headers
    const exp = now + VAPID_LIFETIME_SECONDS
    const headers = webpush.getVapidHeaders(
      origin,
      config.VAPID_SUBJECT,
      config.VAPID_PUBLIC_KEY,
      config.VAPID_PRIVATE_KEY,
      encoding,
      exp,
    ) as Record<string, string>
    vapid.set(key, { headers, renewAt: exp - VAPID_RENEW_BEFORE_SECONDS })
    return headers
  }

  function agentFor(url: URL): http.Agent {
    let agent = agents.get(url.origin)
    if (!agent) {
      const options = { keepAlive: true, maxSockets: config.PUSH_MAX_SOCKETS_PER_ORIGIN }
      agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options)
      agents.set(url.origin, agent)
    }
    return agent
  }

  async function send(subscription: SubscriptionRow, payload: string): Promise<PushResponse> {
    const url = new URL(subscription.endpoint)
    const encoding: Encoding = subscription.standard ? 'aes128gcm' : 'aesgcm'
    const auth = vapidHeaders(url.origin, encoding)
    const details = webpush.generateRequestDetails(
      {
        endpoint: subscription.endpoint,
        keys: { p256dh: subscription.key_p256dh, auth: subscription.key_auth },
      },
      payload,
      // `vapidDetails: null` skips web-push's per-message signing (its types omit null, which it documents).
      {
        vapidDetails: null,
        TTL: PUSH_TTL_SECONDS,
        urgency: 'normal',
        contentEncoding: encoding,
        headers: { Authorization: auth.Authorization! },
      } as unknown as webpush.RequestOptions,
    )
    const headers = details.headers as Record<string, string | number>
    if (encoding === 'aesgcm') headers['Crypto-Key'] = `${headers['Crypto-Key']};${auth['Crypto-Key']}`
    await guard.vetLiteral(url.hostname)
    return post(url, headers, details.body as Buffer)
  }

  function post(url: URL, headers: Record<string, string | number>, body: Buffer): Promise<PushResponse> {
    const client = url.protocol === 'https:' ? https : http
    return new Promise((resolve, reject) => {
      const req = client.request(
        {
          method: 'POST',
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          headers,
          agent: agentFor(url),
          lookup: guard.lookup, // a new connection goes to a vetted address; a kept-alive one looks nothing up
          timeout: config.PUSH_REQUEST_TIMEOUT_MS,
        },
        (res) => {
          res.resume() // the body is not needed, but must be read for the socket to return to the pool
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }))
          res.on('error', reject)
        },
      )
      req.on('timeout', () => req.destroy(new Error('Push service did not answer in time')))
      req.on('socket', (socket) => {
        if (!socket.connecting) return
        const timer = setTimeout(
          () => req.destroy(new Error('Could not connect to the push service in time')),
          config.PUSH_CONNECT_TIMEOUT_MS,
        )
        socket.once('connect', () => clearTimeout(timer))
        socket.once('close', () => clearTimeout(timer))
      })
      req.on('error', reject)
      req.end(body)
    })
  }

  return {
    send,
    close() {
      for (const agent of agents.values()) agent.destroy()
      agents.clear()
    },
  }
}
export type PushSender = ReturnType<typeof createPushSender>
