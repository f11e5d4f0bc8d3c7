import { createECDH, randomBytes } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import webpush from 'web-push'
import { createAddressGuard, PrivateAddressError } from '@roost/service'
import type { AddressGuard } from '@roost/service'
import type { PushConfig } from '../config'
import type { SubscriptionRow } from '../subscriptions/store'
import { createPushSender } from './sender'

/**
 * The push sender's connections (apps/push/src/delivery/sender.ts) against a local HTTP push service: a host
 * name is resolved and vetted when a connection opens, not for each push, and a private address is refused
 * before anything connects.
 */
let server: http.Server
let port: number
let connections = 0
let pushes = 0
beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      pushes++
      res.writeHead(201).end()
    })
  })
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise((resolve) => server.close(resolve)))
beforeEach(() => {
  connections = 0
  pushes = 0
})

const vapid = webpush.generateVAPIDKeys()
const config = {
  VAPID_PUBLIC_KEY: vapid.publicKey,
  VAPID_PRIVATE_KEY: vapid.privateKey,
  VAPID_SUBJECT: 'mailto:admin@roost.test',
  PUSH_CONNECT_TIMEOUT_MS: 5000,
  PUSH_REQUEST_TIMEOUT_MS: 5000,
  PUSH_MAX_SOCKETS_PER_ORIGIN: 4,
} as PushConfig

function subscription(endpoint: string): SubscriptionRow {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  return {
    endpoint,
    key_p256dh: ecdh.getPublicKey().toString('base64url'),
    key_auth: randomBytes(16).toString('base64url'),
    standard: true,
  } as SubscriptionRow
}

/** The guard, counting the host names it is asked to resolve, for a request or for a new connection. */
function countingGuard(allowed: string) {
  const guard = createAddressGuard(allowed)
  const counted = { lookups: 0 }
  const lookup = ((...args: Parameters<AddressGuard['lookup']>) => {
    counted.lookups++
    return (guard.lookup as (...a: unknown[]) => void)(...args)
  }) as AddressGuard['lookup']
  return {
    counted,
    guard: Object.assign((host: string) => guard(host), { lookup, vetLiteral: guard.vetLiteral }),
  }
}

describe('push connections', () => {
  it('resolves a push service host once for its connection, not once per push', async () => {
    const { counted, guard } = countingGuard('127.0.0.0/8,::1')
    const sender = createPushSender(config, guard)
    try {
      const to = subscription(`http://localhost:${port}/push/a`)
      for (let i = 0; i < 3; i++) expect((await sender.send(to, '{"title":"hi"}')).status).toBe(201)
      expect(pushes).toBe(3)
      expect(connections).toBe(1)
      expect(counted.lookups).toBe(1)
    } finally {
      sender.close()
    }
  })

  it('refuses a host name and an IP literal that are private before connecting', async () => {
    const { guard } = countingGuard('')
    const sender = createPushSender(config, guard)
    try {
      for (const host of ['localhost', '127.0.0.1', '[::ffff:127.0.0.1]'])
        await expect(sender.send(subscription(`http://${host}:${port}/push/b`), '{}')).rejects.toBeInstanceOf(
          PrivateAddressError,
        )
      expect(connections).toBe(0)
      expect(pushes).toBe(0)
    } finally {
      sender.close()
    }
  })
})
