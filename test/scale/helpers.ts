import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { eventually, startStack } from '../stack'
import type { Stack, StackOptions } from '../stack'
import { signUp } from '../accounts/social/helpers'
import { startMiniPeer } from '../federation/mini-peer'
import type { MiniPeer } from '../federation/mini-peer'
import { subscribedUser } from '../push/helpers'

/** A stack (as `options` says) with federation on, a push receiver and a mini-peer: what a round trip needs. */
export async function startScaleStack(options: StackOptions) {
  const stack = await startStack({
    ...options,
    env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100', ...options.env },
  })
  const receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
  const peer = await startMiniPeer()
  return {
    stack,
    receiver,
    peer,
    async stop() {
      await stack.stop()
      await receiver.close()
      await peer.stop()
    },
  }
}

/**
 * The write path once, end to end (docs/operations.md, "Several copies of each process" and "PgBouncer"): bob
 * mentions alice (push-subscribed) and dave on the peer. Alice gets exactly one mention notification and exactly one
 * push, and the peer exactly one Create, however many copies of each process share the work.
 */
export async function roundTrip(
  { stack, receiver, peer }: { stack: Stack; receiver: PushReceiver; peer: MiniPeer },
  name: string,
) {
  const alice = await subscribedUser(stack, receiver)
  const aliceRead = await stack.userToken('read', alice)
  const bob = await signUp(stack, { username: `bob_${name}` })
  peer.actor(`dave_${name}`)
  const search = await bob
    .get(`/api/v2/search?q=dave_${name}@${peer.domain}&resolve=true&type=accounts`)
    .expect(200)
  expect(search.body.accounts).toHaveLength(1)

  const status = await bob
    .post('/api/v1/statuses', { status: `@${alice.username} @dave_${name}@${peer.domain} hello ${name}` })
    .expect(200)
  await receiver.waitFor(() => receiver.messagesFor(alice.endpoint).length >= 1, 30_000)
  const creates = () =>
    peer.received.filter(
      (r) => r.activity.type === 'Create' && (r.activity.object as { id?: string }).id === status.body.uri,
    )
  await eventually(async () => creates().length > 0)
  await stack.drain()

  const notifications = await stack
    .api()
    .get('/api/v1/notifications')
    .set('Authorization', `Bearer ${aliceRead}`)
    .expect(200)
  expect(
    notifications.body.map((n: { type: string; status?: { id: string } }) => [n.type, n.status?.id]),
  ).toEqual([['mention', status.body.id]])
  const pushes = receiver.messagesFor(alice.endpoint)
  expect(pushes.map((m) => m.payload.notification_type)).toEqual(['mention'])
  expect(String(pushes[0]!.payload.notification_id)).toBe(notifications.body[0].id)
  expect(creates()).toHaveLength(1)
  return { alice, bob, status: status.body as { id: string; uri: string } }
}
