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
  // A real one: 50 posts, pages of 15, newest first.
  const writer = peer.actor('writer')
  const notes = Array.from({ length: 50 }, (_, i) => peer.note(writer, `post ${i + 1}`))
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
    return body.length >= 20 ? body : undefined
  })
  expect(statuses.map((s) => s.content)).toEqual(
    Array.from({ length: 20 }, (_, i) => `<p>post ${50 - i}</p>`),
  )
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
