import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer } from './mini-peer'
import { REPLIES_MAX_DEPTH } from '../../apps/accounts/src/activities/replies'

const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

/**
 * Complete threads (docs/federation.md, "Complete threads"): opening the thread of a remote post starts the fetch
 * of its replies in the worker, announced by Mastodon's `Mastodon-Async-Refresh` header and followed at
 * GET /api/v1_alpha/async_refreshes/:id. The post is on one server, its replies on a third one (and one reply to a
 * reply back on the first); the `replies` collection is paged, with an item inline from another host (fetched
 * from its own), and the FEP-7888 `context` collection lists one more reply that no `replies` collection does.
 */
let stack: Stack
let origin: MiniPeer
let third: MiniPeer
let alice: TestUser
const requested: string[] = []

beforeAll(async () => {
  ;[stack, origin, third] = await Promise.all([
    startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } }),
    startMiniPeer(),
    startMiniPeer(),
  ])
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow' })
  for (const peer of [origin, third]) {
    const get = peer.objects.get.bind(peer.objects)
    peer.objects.get = (key: string) => {
      requested.push(key)
      return get(key)
    }
  }
}, 240_000)
afterAll(async () => {
  await stack?.stop()
  await origin?.stop()
  await third?.stop()
})

const AS = 'https://www.w3.org/ns/activitystreams'
const HEADER = /^id="([A-Za-z0-9_-]+)", retry=3, result_count=0$/

test('a thread with replies from a third server is fetched when it is opened, once per cooldown', async () => {
  const op = origin.actor('op')
  const fan = third.actor('fan')
  const other = third.actor('other')
  const root = origin.note(op, 'the root') as Record<string, unknown>
  const r1 = third.note(fan, 'reply one', root.id as string) as Record<string, unknown>
  const r2 = third.note(other, 'reply two', root.id as string)
  const r1a = origin.note(op, 'reply to reply one', r1.id as string)
  const r3 = third.note(fan, 'reply three, in the context only', r2.id)
  // The root's replies: a first page inline naming r1, a second page with r2 inline (from another host: fetched).
  root.replies = {
    id: `${root.id}/replies`,
    type: 'Collection',
    first: {
      type: 'CollectionPage',
      partOf: `${root.id}/replies`,
      items: [r1.id],
      next: `${root.id}/replies/page2`,
    },
  }
  origin.objects.set(`${root.id}/replies/page2`, {
    '@context': AS,
    id: `${root.id}/replies/page2`,
    type: 'CollectionPage',
    partOf: `${root.id}/replies`,
    items: [{ ...r2, content: '<p>forged by the origin</p>' }],
  })
  root.context = `${root.id}/context`
  origin.objects.set(`${root.id}/context`, {
    '@context': AS,
    id: `${root.id}/context`,
    type: 'OrderedCollection',
    orderedItems: [root.id, r1.id, r3.id],
  })
  r1.replies = `${r1.id}/replies`
  third.objects.set(`${r1.id}/replies`, {
    '@context': AS,
    id: `${r1.id}/replies`,
    type: 'OrderedCollection',
    orderedItems: [r1a.id],
  })

  const found = await alice
    .get(`/api/v2/search?q=${encodeURIComponent(root.id as string)}&resolve=true&type=statuses`)
    .expect(200)
  const id = found.body.statuses[0].id as string

  // Signed out: the thread as known, no fetch.
  const anonymous = await stack.api().get(`/api/v1/statuses/${id}/context`).expect(200)
  expect(anonymous.headers['mastodon-async-refresh']).toBeUndefined()

  const opened = await alice.get(`/api/v1/statuses/${id}/context`).expect(200)
  expect(opened.body).toEqual({ ancestors: [], descendants: [] })
  const refreshId = HEADER.exec(opened.headers['mastodon-async-refresh'] ?? '')?.[1]
  expect(refreshId).toBeDefined()

  const finished = await eventually(async () => {
    const res = await alice.get(`/api/v1_alpha/async_refreshes/${refreshId}`).expect(200)
    return res.body.async_refresh.status === 'finished' ? res.body : undefined
  })
  expect(finished).toEqual({ async_refresh: { id: refreshId, status: 'finished', result_count: 4 } })

  const thread = await alice.get(`/api/v1/statuses/${id}/context`).expect(200)
  expect(thread.headers['mastodon-async-refresh']).toBeUndefined()
  expect(thread.body.descendants.map((s: { content: string }) => s.content).sort()).toEqual(
    [
      '<p>reply one</p>',
      '<p>reply to reply one</p>',
      '<p>reply two</p>',
      '<p>reply three, in the context only</p>',
    ].sort(),
  )
  // Opened again within REMOTE_REPLIES_COOLDOWN_MINUTES: nothing more is read.
  await stack.drain()
  const reads = requested.length
  await alice.get(`/api/v1/statuses/${id}/context`).expect(200)
  await stack.drain()
  expect(requested.slice(reads)).toEqual([])

  // A reply's thread starts from the same root: marked fetched already.
  const reply = thread.body.descendants.find((s: { content: string }) => s.content === '<p>reply one</p>')
  const fromReply = await alice.get(`/api/v1/statuses/${reply.id}/context`).expect(200)
  expect(fromReply.headers['mastodon-async-refresh']).toBeUndefined()
  expect(fromReply.body.ancestors.map((s: { id: string }) => s.id)).toEqual([id])
})

test('GET /api/v1_alpha/async_refreshes/:id: 404 for an unknown id, 401 signed out', async () => {
  const unknown = await alice.get('/api/v1_alpha/async_refreshes/bm90aGluZw').expect(404)
  expect(unknown.body).toEqual({ error: 'Record not found' })
  await stack.api().get('/api/v1_alpha/async_refreshes/bm90aGluZw').expect(401)
})

test(`replies are followed ${REPLIES_MAX_DEPTH} levels down, no deeper`, async () => {
  const op = origin.actor('deep')
  const root = origin.note(op, 'a deep thread') as Record<string, unknown>
  let parent = root
  for (let level = 1; level <= REPLIES_MAX_DEPTH + 3; level++) {
    const reply = third.note(third.actor(`r${level}`), `level ${level}`, parent.id as string) as Record<
      string,
      unknown
    >
    const collection = `${parent.id}/replies`
    ;(parent.id === root.id ? origin : third).objects.set(collection, {
      '@context': AS,
      id: collection,
      type: 'OrderedCollection',
      orderedItems: [reply.id],
    })
    parent.replies = collection
    parent = reply
  }
  const found = await alice
    .get(`/api/v2/search?q=${encodeURIComponent(root.id as string)}&resolve=true&type=statuses`)
    .expect(200)
  const id = found.body.statuses[0].id as string
  const opened = await alice.get(`/api/v1/statuses/${id}/context`).expect(200)
  const refreshId = HEADER.exec(opened.headers['mastodon-async-refresh'] ?? '')?.[1]
  const finished = await eventually(async () => {
    const res = await alice.get(`/api/v1_alpha/async_refreshes/${refreshId}`).expect(200)
    return res.body.async_refresh.status === 'finished' ? res.body : undefined
  })
  expect(finished.async_refresh.result_count).toBe(REPLIES_MAX_DEPTH)
  const thread = await alice.get(`/api/v1/statuses/${id}/context`).expect(200)
  expect(thread.body.descendants.map((s: { content: string }) => s.content)).toEqual(
    Array.from({ length: REPLIES_MAX_DEPTH }, (_, i) => `<p>level ${i + 1}</p>`),
  )
})
