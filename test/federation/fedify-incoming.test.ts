import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startPeer } from './peer'
import type { Peer } from './peer'

// A post from an independent ActivityPub server (the Fedify peer, ./peer) mentioning a Roost user: Fedify builds,
// signs and delivers the Create(Note); Roost verifies the signature, stores the status, notifies and pushes
// (docs/federation.md, "Incoming statuses").
let stack: Stack
let peer: Peer
let receiver: PushReceiver
let alice: TestUser
let endpoint: string
const WAIT_MS = 60_000
jest.setTimeout(4 * WAIT_MS)
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startPeer({ httpHosts: [new URL(stack.url).host] })
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow push' })
  const subscriber = receiver.subscriber()
  endpoint = subscriber.endpoint
  await alice
    .post('/api/v1/push/subscription', {
      subscription: { endpoint: subscriber.endpoint, keys: subscriber.keys, standard: true },
      data: { alerts: { mention: true }, policy: 'all' },
    })
    .expect(200)
}, 240_000)
afterAll(async () => {
  await receiver?.close()
  await peer?.stop()
  await stack?.stop()
})

it("Fedify's Create(Note) mentioning alice is stored, notified and pushed", async () => {
  const host = new URL(stack.url).host
  const sent = await peer.post(
    `${stack.url}/users/alice`,
    `@alice@${host}`,
    `<p>Hello <a href="${stack.url}/@alice" class="u-url mention">@alice</a> from Fedify</p>`,
  )
  const notification = await eventually(async () => {
    const res = await alice.get('/api/v1/notifications').expect(200)
    return res.body.find((n: { type: string }) => n.type === 'mention')
  }, WAIT_MS)
  expect(notification).toMatchObject({
    account: { acct: `bob@${peer.host}`, uri: peer.actor('bob') },
    status: {
      uri: sent.note,
      visibility: 'public',
      mentions: [{ id: alice.id, username: 'alice' }],
      content: `<p>Hello <a href="${stack.url}/@alice" rel="nofollow noopener" target="_blank" class="u-url mention">@alice</a> from Fedify</p>`,
    },
  })
  await receiver.waitFor(() => receiver.messagesFor(endpoint).length === 1, WAIT_MS)
  expect(receiver.problems).toEqual([])
  expect(receiver.messagesFor(endpoint)[0]!.payload).toMatchObject({ notification_type: 'mention' })
  // The status is in the federated timeline, not the local one.
  const remote = await alice.get('/api/v1/timelines/public?remote=true').expect(200)
  expect(remote.body.map((s: { uri: string }) => s.uri)).toEqual([sent.note])
})
