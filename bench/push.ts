import http from 'node:http'
import type { AddressInfo } from 'node:net'
import webpush from 'web-push'
import { createSubscriberKeys } from '@roost/testing'
import { loadPushConfig } from '../apps/push/src/config'
import { createAddressGuard } from '@roost/service'
import { createPushSender } from '../apps/push/src/delivery/sender'
import type { SubscriptionRow } from '../apps/push/src/subscriptions/store'

/** A push service stand-in that accepts everything (decryption is not what is measured here). */
async function startSink() {
  const server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(201).end())
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}

async function rate(count: number, concurrency: number, send: () => Promise<unknown>): Promise<number> {
  let left = count
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await send()
    }),
  )
  return Math.round(count / ((performance.now() - started) / 1000))
}

/**
 * Encrypted pushes per second: Roost's sender (VAPID signed once per origin, keep-alive pool per origin) against
 * the way web-push is usually used (`sendNotification`: VAPID re-signed per message, a connection per message —
 * here its own request builder plus a plain request with no agent, since web-push's sender cannot speak http://).
 */
export async function benchPush(count: number) {
  const vapid = webpush.generateVAPIDKeys()
  const config = loadPushConfig({
    GATEWAY_SECRET: 'required by the config, unused by the sender',
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    PUSH_ALLOWED_PRIVATE_ADDRESSES: '127.0.0.0/8',
  })
  const sink = await startSink()
  const keys = createSubscriberKeys()
  const subscription = {
    endpoint: `${sink.url}/push/bench`,
    key_p256dh: keys.p256dh,
    key_auth: keys.auth,
    standard: true,
  } as SubscriptionRow
  const payload = JSON.stringify({
    notification_type: 'follow',
    title: 'Alice is now following you',
    body: 'x'.repeat(120),
  })
  const sender = createPushSender(config, createAddressGuard(config.PUSH_ALLOWED_PRIVATE_ADDRESSES))

  const naiveSend = () => {
    const details = webpush.generateRequestDetails(
      { endpoint: subscription.endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } },
      payload,
      {
        vapidDetails: {
          subject: config.VAPID_SUBJECT,
          publicKey: vapid.publicKey,
          privateKey: vapid.privateKey,
        },
      },
    )
    return new Promise((resolve, reject) => {
      const req = http.request(
        details.endpoint,
        { method: 'POST', headers: details.headers, agent: false },
        (res) => {
          res.resume()
          res.on('end', resolve)
        },
      )
      req.on('error', reject)
      req.end(details.body)
    })
  }
  const naive = await rate(count, 20, naiveSend)
  const roost = await rate(count, 20, () => sender.send(subscription, payload))
  sender.close()
  sink.close()
  return { naive, roost }
}
