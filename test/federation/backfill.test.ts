import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { resolveActor, startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'
import { BACKFILL_MAX_PAGES } from '../../apps/accounts/src/activities/backfill'

const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

/**
 * Backfill of remote profiles (docs/federation.md, "Backfill of remote profiles"): a remote account resolved for
 * the first time gets the newest REMOTE_BACKFILL_STATUSES posts of its outbox, read by the worker. The outbox is
 * shaped as Mastodon serves one: an OrderedCollection whose `first` page lists `Create` activities newest first,
 * each page linking the `next`.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
const requested: string[] = []

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow' })
  // Which documents the peer was asked for (the map the mini-peer serves from, read through).
  const get = peer.objects.get.bind(peer.objects)
  peer.objects.get = (key: string) => {
    requested.push(key)
    return get(key)
  }
}, 240_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const create = (note: Record<string, unknown>) => ({
  id: `${String(note.id)}/activity`,
  type: 'Create',
  actor: note.attributedTo,
  to: note.to,
  cc: note.cc,
  object: note,
})

/** Serves `actor`'s outbox with these pages (each a list of items), linked by `next`. */
function serveOutbox(actor: PeerActor, pages: unknown[][], extra: Record<string, unknown> = {}) {
  const outbox = `${actor.uri}/outbox`
  const pageUrl = (i: number) => `${outbox}/page/${i + 1}`
  peer.objects.set(outbox, {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: outbox,
    type: 'OrderedCollection',
    totalItems: pages.flat().length,
    first: pageUrl(0),
  })
  pages.forEach((items, i) =>
    peer.objects.set(pageUrl(i), {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: pageUrl(i),
      type: 'OrderedCollectionPage',
      partOf: outbox,
      orderedItems: items,
      ...(i + 1 < pages.length ? { next: pageUrl(i + 1) } : {}),
      ...extra,
    }),
  )
}

/** Serves `actor`'s featured collection (its pinned posts, by id, as Mastodon lists them). */
function serveFeatured(actor: PeerActor, ids: string[]) {
  const url = `${actor.uri}/collections/featured`
  peer.objects.set(url, {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: url,
    type: 'OrderedCollection',
    totalItems: ids.length,
    orderedItems: ids,
  })
}

const resolve = async (username: string) => (await resolveActor(alice, peer, username)).id

test('the newest 20 of 50 posts are stored, in order, after hostile outboxes were given up on', async () => {
  // An outbox whose page is larger than the client reads, and one whose pages never end.
  const huge = peer.actor('huge')
  serveOutbox(huge, [[create(peer.note(huge, 'lost'))]], { padding: 'x'.repeat(3 * 1024 * 1024) })
  const endless = peer.actor('endless')
  serveOutbox(
    endless,
    Array.from({ length: 50 }, () => [{ type: 'Announce', id: `${endless.uri}/boost`, object: 'x' }]),
  )
  // A real one: 50 posts, pages of 15, newest first; post 3, older than the newest 20, pinned.
  const writer = peer.actor('writer', {
    extra: { featured: `${peer.base}/users/writer/collections/featured` },
  })
  const notes = Array.from({ length: 50 }, (_, i) => peer.note(writer, `post ${i + 1}`))
  serveFeatured(writer, [notes[2]!.id])
  const newestFirst = [...notes].reverse().map(create)
  serveOutbox(
    writer,
    [0, 15, 30, 45].map((start) => newestFirst.slice(start, start + 15)),
  )

  const hugeId = await resolve('huge')
  const endlessId = await resolve('endless')
  const writerId = await resolve('writer')
  // The profile answers at once with what is known.
  await alice.get(`/api/v1/accounts/${writerId}/statuses`).expect(200)

  const statuses = await eventually(async () => {
    const res = await alice.get(`/api/v1/accounts/${writerId}/statuses?limit=40`).expect(200)
    const body = res.body as { content: string; uri: string }[]
    return body.length >= 21 ? body : undefined
  })
  // The newest 20, and post 3, which is pinned: 21 posts on the profile.
  expect(statuses.map((s) => s.content)).toEqual([
    ...Array.from({ length: 20 }, (_, i) => `<p>post ${50 - i}</p>`),
    '<p>post 3</p>',
  ])
  // As a client shows the profile: the pinned posts (pinned=true) first, then the newest 20.
  const pinned = await alice.get(`/api/v1/accounts/${writerId}/statuses?pinned=true`).expect(200)
  expect(pinned.body.map((s: { content: string }) => s.content)).toEqual(['<p>post 3</p>'])
  // Only the two pages needed were read.
  expect(requested.filter((url) => url.startsWith(`${writer.uri}/outbox/page/`))).toEqual([
    `${writer.uri}/outbox/page/1`,
    `${writer.uri}/outbox/page/2`,
  ])
  // The endless outbox was read for BACKFILL_MAX_PAGES pages, no more; neither hostile one stored anything.
  const endlessPages = () => requested.filter((url) => url.startsWith(`${endless.uri}/outbox/page/`))
  await eventually(async () => endlessPages().length >= BACKFILL_MAX_PAGES)
  await new Promise((r) => setTimeout(r, 500))
  expect(endlessPages()).toHaveLength(BACKFILL_MAX_PAGES)
  await eventually(async () => requested.includes(`${huge.uri}/outbox/page/1`))
  await new Promise((r) => setTimeout(r, 500))
  for (const id of [hugeId, endlessId])
    expect((await alice.get(`/api/v1/accounts/${id}/statuses`).expect(200)).body).toEqual([])
}, 120_000)

test('an account resolved again is not read again', async () => {
  const before = requested.length
  await resolve('writer')
  await new Promise((r) => setTimeout(r, 1000))
  expect(requested.slice(before).filter((url) => url.includes('/outbox'))).toEqual([])
})

test('a profile opened after REMOTE_BACKFILL_STALE_HOURS is read again: new posts and pins, through the worker', async () => {
  const writer = peer.actors.get('writer')!
  const [account] = await stack.accounts.ctx.db('accounts').where({ uri: writer.uri }).select('id')
  const id = account.id as string
  // Two new posts and a new pin since.
  const fresh = [peer.note(writer, 'post 51'), peer.note(writer, 'post 52')]
  const page1 = peer.objects.get(`${writer.uri}/outbox/page/1`) as { orderedItems: unknown[] }
  const older = requested.filter((url) => url.startsWith(`${writer.uri}/outbox/page/1`)).length
  page1.orderedItems = [...[...fresh].reverse().map(create), ...page1.orderedItems]
  serveFeatured(writer, [fresh[0]!.id])
  // Opened within the staleness: nothing is read.
  await alice.get(`/api/v1/accounts/${id}/statuses`).expect(200)
  await stack.drain()
  expect(requested.filter((url) => url.startsWith(`${writer.uri}/outbox/page/1`))).toHaveLength(older)
  // Last read two days ago: the answer has what is stored, and the worker fills in.
  await stack.accounts.ctx
    .db('accounts')
    .where({ id })
    .update({ backfilled_at: new Date(Date.now() - 48 * 3600_000) })
  const first = await alice.get(`/api/v1/accounts/${id}/statuses?limit=1`).expect(200)
  expect(first.body.map((s: { content: string }) => s.content)).toEqual(['<p>post 50</p>'])
  const statuses = await eventually(async () => {
    const res = await alice.get(`/api/v1/accounts/${id}/statuses?limit=3`).expect(200)
    return res.body[0]?.content === '<p>post 52</p>' ? res.body : undefined
  })
  expect(statuses.map((s: { content: string }) => s.content)).toEqual([
    '<p>post 52</p>',
    '<p>post 51</p>',
    '<p>post 50</p>',
  ])
  await eventually(async () => {
    const res = await alice.get(`/api/v1/accounts/${id}/statuses?pinned=true`).expect(200)
    return res.body.length === 1 && res.body[0].content === '<p>post 51</p>'
  })
  // Opened again at once: not read again.
  await stack.drain()
  const reads = requested.length
  await alice.get(`/api/v1/accounts/${id}/statuses`).expect(200)
  await stack.drain()
  expect(requested.slice(reads).filter((url) => url.includes('/outbox'))).toEqual([])
})

test("an outbox naming its posts by id has them fetched from the account's host, others' ignored", async () => {
  const terse = peer.actor('terse')
  const notes = ['a', 'b', 'c'].map((text) => peer.note(terse, `by id ${text}`))
  const items = [...notes].reverse().map((n) => ({ ...create(n), object: n.id }))
  items.push({ ...create(notes[0]!), object: 'https://elsewhere.example/notes/1' })
  serveOutbox(terse, [items])
  const id = await resolve('terse')
  const statuses = await eventually(async () => {
    const res = await alice.get(`/api/v1/accounts/${id}/statuses`).expect(200)
    return res.body.length >= 3 ? res.body : undefined
  })
  expect(statuses.map((s: { content: string }) => s.content)).toEqual([
    '<p>by id c</p>',
    '<p>by id b</p>',
    '<p>by id a</p>',
  ])
})
