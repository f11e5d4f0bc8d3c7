import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { followAccepted as followAndAccept, startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

/**
 * An incoming Move (docs/federation.md, "Moved accounts"), shaped as Mastodon sends it (mastodon/mastodon:
 * app/serializers/activitypub/move_serializer.rb: `id` the actor's `#moves/<id>`, `actor` and `object` the old
 * account, `target` the new one; the new actor's `alsoKnownAs` lists the old one, as
 * app/serializers/activitypub/actor_serializer.rb serves it). A forged one (target without the alias, or the Move of
 * another actor) changes nothing.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let old: PeerActor
let next: PeerActor
let liar: PeerActor
let stranger: PeerActor
let oldId: string
let listId: string

const inbox = () => `${stack.url}/inbox`

const followAccepted = async (user: TestUser, actor: PeerActor) =>
  (await followAndAccept(stack, user, peer, actor)).id

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow' })
  old = peer.actor('old', { name: 'Old account' })
  stranger = peer.actor('stranger')
  next = peer.actor('new', { name: 'New account', extra: { alsoKnownAs: [old.uri] } })
  liar = peer.actor('liar', { name: 'No alias' })
  oldId = await followAccepted(alice, old)
  await followAccepted(alice, stranger)
  const list = await alice.post('/api/v1/lists', { title: 'Friends' }).expect(200)
  listId = list.body.id
  await alice.post(`/api/v1/lists/${listId}/accounts`, { account_ids: [oldId] }).expect(200)
  await alice.post(`/api/v1/accounts/${oldId}/note`, { comment: 'met at the conference' }).expect(200)
}, 240_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

test('a Move to a target without the alias, or signed by another actor, changes nothing', async () => {
  await peer.post(inbox(), old, {
    id: `${old.uri}#moves/1`,
    type: 'Move',
    actor: old.uri,
    object: old.uri,
    target: liar.uri,
  })
  await peer.post(inbox(), stranger, {
    id: `${stranger.uri}#moves/2`,
    type: 'Move',
    actor: stranger.uri,
    object: old.uri,
    target: next.uri,
  })
  await stack.drain(120_000)
  const account = (await alice.get(`/api/v1/accounts/${oldId}`).expect(200)).body
  expect(account.moved).toBeUndefined()
  const r = (await alice.get(`/api/v1/accounts/relationships?id[]=${oldId}`).expect(200)).body[0]
  expect(r.following).toBe(true)
  expect(
    peer.received.filter((x) => x.activity.type === 'Follow' && x.activity.object === liar.uri),
  ).toHaveLength(0)
})

test('a Move whose target lists the origin sets `moved`, moves the follow, the list and the note, and notifies', async () => {
  const res = await peer.post(inbox(), old, {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${old.uri}#moves/3`,
    type: 'Move',
    actor: old.uri,
    object: old.uri,
    target: next.uri,
  })
  expect(res.status).toBe(202)
  // Alice's server asks to follow the new account, and stops following the old one.
  const follow = await eventually(async () =>
    peer.received.find((r) => r.activity.type === 'Follow' && r.activity.object === next.uri),
  )
  await eventually(async () =>
    peer.received.find(
      (r) => r.activity.type === 'Undo' && (r.activity.object as { object?: string }).object === old.uri,
    ),
  )
  await peer.post(inbox(), next, {
    id: `${next.uri}#accepts/follows/1`,
    type: 'Accept',
    actor: next.uri,
    object: follow.activity,
  })
  const moved = (await alice.get(`/api/v1/accounts/${oldId}`).expect(200)).body
  expect(moved.moved).toMatchObject({ acct: `new@${peer.domain}`, display_name: 'New account' })
  expect(moved.moved.moved).toBeUndefined()
  const nextId = moved.moved.id as string
  await eventually(async () => {
    const r = (await alice.get(`/api/v1/accounts/relationships?id[]=${nextId}&id[]=${oldId}`).expect(200))
      .body
    return r[0].following && !r[1].following && !r[1].requested ? r : undefined
  })
  const rel = (await alice.get(`/api/v1/accounts/relationships?id[]=${nextId}`).expect(200)).body[0]
  expect(rel.note).toBe(
    `This user moved from old@${peer.domain}, here were your previous notes about them:\nmet at the conference`,
  )
  const members = (await alice.get(`/api/v1/lists/${listId}/accounts`).expect(200)).body
  expect(members.map((a: { id: string }) => a.id)).toEqual([nextId])
  const notifications = await eventually(async () => {
    const n = (await alice.get('/api/v1/notifications?types[]=move').expect(200)).body
    return n.length ? n : undefined
  })
  expect(notifications[0]).toMatchObject({ type: 'move', account: { id: oldId, moved: { id: nextId } } })
  // A replay changes nothing more.
  await peer.post(inbox(), old, {
    id: `${old.uri}#moves/4`,
    type: 'Move',
    actor: old.uri,
    object: old.uri,
    target: next.uri,
  })
  await stack.drain(120_000)
  expect((await alice.get('/api/v1/notifications?types[]=move').expect(200)).body).toHaveLength(1)
})
