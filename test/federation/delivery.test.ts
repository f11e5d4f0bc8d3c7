import { isUnavailable, recordFailure } from '../../apps/accounts/src/federation/transport/delivery-failures'
import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/** Effects across servers go through two queues each way: generous on a loaded shared machine. */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

/**
 * Delivery (docs/federation.md, "Delivery"): a peer that is down for a while (503s, then connections dropped)
 * gets the activity once when it is back; a 4xx that will not get better is not retried; a host that kept
 * failing for days gets nothing until it is heard from again.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let dave: PeerActor
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice' })
  dave = peer.actor('dave')
})
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const db = () => stack.accounts.ctx.db
const ofType = (type: string) => peer.received.filter((r) => r.activity.type === type)
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500))

async function resolveDave() {
  const res = await alice.get(`/api/v2/search?q=dave@${peer.domain}&resolve=true&type=accounts`).expect(200)
  expect(res.body.accounts).toHaveLength(1)
  return res.body.accounts[0].id as string
}

it('retries while the peer is down, and the Follow arrives once when it is back', async () => {
  const daveId = await resolveDave()
  peer.answers.push(503, 503, 'drop', 'drop')
  await alice.post(`/api/v1/accounts/${daveId}/follow`).expect(200)
  await eventually(async () => ofType('Follow').length > 0, 60_000)
  await settle()
  expect(ofType('Follow')).toHaveLength(1)
  expect(peer.attempts).toBe(5)
  const follow = ofType('Follow')[0]!
  expect(follow.path).toBe('/users/dave/inbox')
  expect(follow.activity).toMatchObject({ actor: `${stack.url}/users/alice`, object: dave.uri })

  // The peer accepts: alice follows dave.
  const accept = {
    id: `${dave.uri}#accepts/1`,
    type: 'Accept',
    actor: dave.uri,
    object: follow.activity.id,
  }
  expect((await peer.post(`${stack.url}/users/alice/inbox`, dave, accept)).status).toBe(202)
  await stack.drain()
  const rel = (await alice.get(`/api/v1/accounts/relationships?id[]=${daveId}`).expect(200)).body[0]
  expect(rel).toMatchObject({ following: true, requested: false })
})

it('does not retry a refusal that will not change (403)', async () => {
  const daveId = await resolveDave()
  const before = peer.attempts
  peer.answers.push(403)
  await alice.post(`/api/v1/accounts/${daveId}/block`).expect(200)
  await stack.drain()
  // Unfollow (Undo) and Block: the first answer was a 403, the other went through; nothing is tried again.
  await eventually(async () => peer.attempts >= before + 2)
  await settle()
  expect(peer.attempts).toBe(before + 2)
})

it('sends nothing to a host that kept failing for 7 days, until it is heard from', async () => {
  const daveId = await resolveDave()
  for (let day = 0; day < 6; day++)
    expect(await recordFailure(db(), peer.domain, new Date(Date.UTC(2026, 10, 1 + day)))).toBe(false)
  // The same day again does not count twice.
  expect(await recordFailure(db(), peer.domain, new Date(Date.UTC(2026, 10, 6, 23)))).toBe(false)
  expect(await isUnavailable(db(), peer.domain)).toBe(false)
  expect(await recordFailure(db(), peer.domain, new Date(Date.UTC(2026, 10, 7)))).toBe(true)
  expect(await isUnavailable(db(), peer.domain)).toBe(true)

  const before = peer.attempts
  await alice.post(`/api/v1/accounts/${daveId}/unblock`).expect(200)
  await stack.drain()
  await settle()
  expect(peer.attempts).toBe(before)

  // A signed activity from the host makes it available again.
  const update = {
    id: `${dave.uri}#updates/1`,
    type: 'Update',
    actor: dave.uri,
    object: peer.actorJson(dave),
  }
  expect((await peer.post(`${stack.url}/inbox`, dave, update)).status).toBe(202)
  expect(await isUnavailable(db(), peer.domain)).toBe(false)
  await alice.post(`/api/v1/accounts/${daveId}/block`).expect(200)
  await eventually(async () => peer.attempts > before)
})
