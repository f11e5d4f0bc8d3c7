import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

/**
 * Pinned posts and featured hashtags across servers (docs/federation.md, "Pinned posts and featured hashtags").
 * The remote side is shaped as Mastodon serves it: the actor's `featured` (an OrderedCollection of Notes,
 * mastodon/mastodon: app/serializers/activitypub/collection_serializer.rb via
 * app/controllers/activitypub/collections_controller.rb) and `featuredTags` (a Collection of Hashtags), and its
 * Add/Remove of a pin (app/serializers/activitypub/add_serializer.rb: `target` the featured collection).
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let mallory: PeerActor
let malloryId: string
let first: Record<string, unknown>
let second: Record<string, unknown>
const inbox = () => `${stack.url}/inbox`

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow' })
  mallory = peer.actor('mallory')
  const featured = `${mallory.uri}/collections/featured`
  const featuredTags = `${mallory.uri}/collections/tags`
  mallory.extra = { featured, featuredTags }
  first = peer.note(mallory, 'Pinned first')
  second = peer.note(mallory, 'Not pinned yet')
  peer.objects.set(featured, {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: featured,
    type: 'OrderedCollection',
    totalItems: 1,
    orderedItems: [first],
  })
  peer.objects.set(featuredTags, {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: featuredTags,
    type: 'Collection',
    totalItems: 2,
    items: [
      { type: 'Hashtag', href: `${peer.base}/tags/cats`, name: '#cats' },
      { type: 'Hashtag', href: `${peer.base}/tags/Fediverse`, name: '#Fediverse' },
    ],
  })
}, 240_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

test("a remote account's featured posts and hashtags are read when it is resolved", async () => {
  const found = await alice
    .get(`/api/v2/search?q=${encodeURIComponent(`@mallory@${peer.domain}`)}&resolve=true&type=accounts`)
    .expect(200)
  malloryId = found.body.accounts[0].id
  const pinned = (await alice.get(`/api/v1/accounts/${malloryId}/statuses?pinned=true`).expect(200)).body
  expect(pinned.map((s: { uri: string }) => s.uri)).toEqual([first.id])
  const tags = (await alice.get(`/api/v1/accounts/${malloryId}/featured_tags`).expect(200)).body
  expect(tags.map((t: { name: string }) => t.name.toLowerCase()).sort()).toEqual(['cats', 'fediverse'])
})

test('Add and Remove of its own featured collection pin and unpin; another target is ignored', async () => {
  const featured = `${mallory.uri}/collections/featured`
  await peer.post(inbox(), mallory, {
    id: `${mallory.uri}#adds/1`,
    type: 'Add',
    actor: mallory.uri,
    object: second.id,
    target: `${mallory.uri}/collections/other`,
  })
  await peer.post(inbox(), mallory, {
    id: `${mallory.uri}#removes/1`,
    type: 'Remove',
    actor: mallory.uri,
    object: first.id,
    target: featured,
  })
  await peer.post(inbox(), mallory, {
    id: `${mallory.uri}#adds/2`,
    type: 'Add',
    actor: mallory.uri,
    object: second.id,
    target: featured,
  })
  await stack.drain(120_000)
  const pinned = (await alice.get(`/api/v1/accounts/${malloryId}/statuses?pinned=true`).expect(200)).body
  expect(pinned.map((s: { uri: string }) => s.uri)).toEqual([second.id])
})

test("a local pin and unpin go to the author's followers as Add and Remove of its featured collection", async () => {
  // mallory follows alice.
  await peer.post(inbox(), mallory, {
    id: `${mallory.uri}#follows/1`,
    type: 'Follow',
    actor: mallory.uri,
    object: `${stack.url}/users/alice`,
  })
  await eventually(async () => peer.received.find((r) => r.activity.type === 'Accept'))
  const status = (await alice.post('/api/v1/statuses', { status: 'pin me' }).expect(200)).body
  await alice.post(`/api/v1/statuses/${status.id}/pin`).expect(200)
  const add = await eventually(async () => peer.received.find((r) => r.activity.type === 'Add'))
  expect(add.activity).toMatchObject({
    actor: `${stack.url}/users/alice`,
    object: `${stack.url}/users/alice/statuses/${status.id}`,
    target: `${stack.url}/users/alice/collections/featured`,
  })
  // The collection it names holds the post.
  const collection = await fetch(`${stack.url}/users/alice/collections/featured`, {
    headers: { Accept: 'application/activity+json' },
  }).then((r) => r.json())
  expect(JSON.stringify(collection)).toContain(`/users/alice/statuses/${status.id}`)
  await alice.post(`/api/v1/statuses/${status.id}/unpin`).expect(200)
  const remove = await eventually(async () => peer.received.find((r) => r.activity.type === 'Remove'))
  expect(remove.activity).toMatchObject({
    object: `${stack.url}/users/alice/statuses/${status.id}`,
    target: `${stack.url}/users/alice/collections/featured`,
  })
})
