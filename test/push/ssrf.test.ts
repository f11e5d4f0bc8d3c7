import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { eventPublisher, subscribedUser } from './helpers'

// A stack like production: no private address is allowed, so even the loopback receiver is off limits.
let stack: Stack
let receiver: PushReceiver
let events: ReturnType<typeof eventPublisher>
beforeAll(async () => {
  stack = await startStack({ env: { PUSH_ALLOWED_PRIVATE_ADDRESSES: '' } })
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
  events = eventPublisher(stack)
})
afterAll(async () => {
  await events.close()
  await stack.stop()
  await receiver.close()
})

async function subscribeTo(endpoint: string) {
  const user = await stack.createUser()
  const token = await stack.userToken('push', user)
  const keys = receiver.subscriber().keys
  await stack
    .api()
    .post('/api/v1/push/subscription')
    .set('Authorization', `Bearer ${token}`)
    .send({ subscription: { endpoint, keys }, data: { alerts: { mention: true } } })
    .expect(200)
  return user
}

describe('push requests never reach private addresses', () => {
  it('refuses link-local, private and loopback endpoints without connecting', async () => {
    const metadata = await subscribeTo('http://169.254.169.254/latest/meta-data')
    const internal = await subscribeTo('https://10.0.0.1/push')
    const loopback = await subscribedUser(stack, receiver)
    for (const user of [metadata, internal, loopback]) await events.publish(events.event(user, 'mention'))
    await stack.drain()

    // The loopback receiver would count any connection: there was none.
    expect(receiver.connections).toBe(0)
    expect(receiver.attempts).toEqual([])
    // Refused for good at the first attempt: nothing is queued to try again.
    expect(await stack.pushWorker.queues.deliveries.getJobCounts('delayed', 'waiting', 'failed')).toEqual({
      delayed: 0,
      waiting: 0,
      failed: 0,
    })
    const metrics = await (await fetch(`${stack.pushWorker.url}/metrics`)).text()
    expect(metrics).toMatch(/push_deliveries_total\{outcome="refused_address"[^}]*\} 3/)
    // Not the subscriber's fault: the subscriptions stay.
    expect(await stack.push.db('subscriptions').count({ n: '*' })).toEqual([{ n: '3' }])
  })
})

describe('IPv6 spellings of private IPv4 addresses (issue #9, finding 12)', () => {
  it('refuses mapped, compatible, SIIT and NAT64 forms of the loopback receiver and the metadata address', async () => {
    const port = new URL(receiver.subscriber().endpoint).port
    const refused = async () =>
      Number(
        /push_deliveries_total\{outcome="refused_address"[^}]*\} (\d+)/.exec(
          await (await fetch(`${stack.pushWorker.url}/metrics`)).text(),
        )?.[1] ?? 0,
      )
    const before = await refused()
    const hosts = [
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::127.0.0.1]',
      '[::ffff:0:7f00:1]',
      '[::a9fe:a9fe]',
      '[::ffff:0:a9fe:a9fe]',
      '[64:ff9b::a9fe:a9fe]',
    ]
    const users = []
    for (const host of hosts) users.push(await subscribeTo(`http://${host}:${port}/push/ssrf`))
    for (const user of users) await events.publish(events.event(user, 'mention'))
    await stack.drain()
    expect(receiver.connections).toBe(0)
    expect((await refused()) - before).toBe(hosts.length)
    expect(await stack.pushWorker.queues.deliveries.getJobCounts('delayed', 'waiting', 'failed')).toEqual({
      delayed: 0,
      waiting: 0,
      failed: 0,
    })
  })
})
