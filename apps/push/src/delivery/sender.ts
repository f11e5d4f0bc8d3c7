import type http from 'node:http'
import webpush from 'web-push'
import type { PushConfig } from '../config'
import type { SubscriptionRow } from '../subscriptions/store'
import type { AddressGuard } from '@roost/service'
import { createOutboundClient } from '@roost/service'

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
 * push-service origin, and requests go through the outbound client every outgoing request uses (`@roost/service`,
 * outbound.ts): kept-alive connections per origin, every new connection to an address the guard has just resolved
 * and vetted (a push on a kept-alive connection makes no DNS query), deadlines to connect and to answer. Push
 * endpoints may be http:// (the subscription API admits them); the answer's body is not read.
 */
export function createPushSender(config: PushConfig, guard: AddressGuard) {
  const vapid = new Map<string, { headers: Record<string, string>; renewAt: number }>()
  const client = createOutboundClient({
    guard,
    allowHttp: true,
    connectTimeoutMs: config.PUSH_CONNECT_TIMEOUT_MS,
    requestTimeoutMs: config.PUSH_REQUEST_TIMEOUT_MS,
    socketsPerOrigin: config.PUSH_MAX_SOCKETS_PER_ORIGIN,
  })

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
    return client.request('POST', url, headers, details.body as Buffer, { discardBody: true })
  }

  return {
    send,
    close: () => client.close(),
  }
}
export type PushSender = ReturnType<typeof createPushSender>
