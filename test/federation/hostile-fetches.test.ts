import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createOutboundClient } from '@roost/service'
import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer } from './mini-peer'
import {
  collectionItems,
  createBoundedFetch,
  ITEMS_PER_PAGE,
} from '../../apps/accounts/src/federation/collections'
import type { BoundedFetch } from '../../apps/accounts/src/federation/collections'
import { createHostSlots } from '../../apps/accounts/src/federation/transport/host-slots'
import { fetchReplies, REPLIES_MAX_STATUSES } from '../../apps/accounts/src/activities/replies'

const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

/**
 * A hostile server cannot stall the worker (docs/federation.md, "What is fetched when"): collections that never
 * end, that loop, that are huge or list too many items, servers that never answer or trickle their answer, each
 * against the bounded fetch (per-domain slots, deadlines) and the SSRF-guarded client's size limit and deadlines;
 * and, through the whole stack, a thread whose replies hang does not hold up another account's backfill.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let fetch: BoundedFetch
let hostile: http.Server
let base = ''
const hits: string[] = []
/** Requests to /hang held open now, and the most at once; `release` answers them all. */
const hanging = { now: 0, max: 0, held: [] as http.ServerResponse[] }
const release = () => {
  for (const res of hanging.held.splice(0)) res.writeHead(404).end()
}

const page = (id: string, items: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id,
    type: 'OrderedCollectionPage',
    orderedItems: items,
    ...extra,
  })

beforeAll(async () => {
  hostile = http.createServer((req, res) => {
    const path = req.url!
    hits.push(path)
    const json = (body: string) =>
      res.writeHead(200, { 'Content-Type': 'application/activity+json' }).end(body)
    let m: RegExpExecArray | null
    if (path === '/endless')
      return json(page(`${base}/endless`, [], { type: 'OrderedCollection', first: `${base}/endless/1` }))
    if ((m = /^\/endless\/(\d+)$/.exec(path)))
      return json(page(`${base}${path}`, [`item ${m[1]}`], { next: `${base}/endless/${Number(m[1]) + 1}` }))
    if (path === '/loop') return json(page(`${base}/loop`, ['looped'], { next: `${base}/loop` }))
    if (path === '/huge') return json(page(`${base}/huge`, ['x'.repeat(3 * 1024 * 1024)]))
    if (path === '/many')
      return json(
        page(
          `${base}/many`,
          Array.from({ length: 150_000 }, (_, i) => i),
        ),
      )
    if (path === '/hang') {
      hanging.max = Math.max(hanging.max, ++hanging.now)
      res.on('close', () => hanging.now--)
      hanging.held.push(res)
      return
    }
    if (path === '/trickle') {
      res.writeHead(200, { 'Content-Type': 'application/activity+json' })
      const timer = setInterval(() => res.write(' '), 50)
      res.on('close', () => clearInterval(timer))
      return
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`
  ;[stack, peer] = await Promise.all([
    startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } }),
    startMiniPeer(),
  ])
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow' })
  const ctx = stack.accounts.ctx
  fetch = createBoundedFetch(
    ctx.federation,
    createHostSlots(ctx.redis, `${ctx.config.REDIS_PREFIX}:test`, 2, 'fetch-slots'),
  )
}, 240_000)
afterAll(async () => {
  release()
  await stack?.stop()
  await peer?.stop()
  hostile?.closeAllConnections()
  await new Promise((resolve) => hostile?.close(resolve))
})

const limits = (overrides: Partial<Parameters<typeof collectionItems>[2]> = {}) => ({
  maxPages: 5,
  maxItems: 1000,
  deadline: Date.now() + 10_000,
  ...overrides,
})
const hitsOf = (prefix: string) => hits.filter((h) => h === prefix || h.startsWith(`${prefix}/`))

it('an endless `next` chain is read for maxPages pages, no more', async () => {
  const items = await collectionItems(fetch, `${base}/endless`, limits())
  expect(items).toEqual(['item 1', 'item 2', 'item 3', 'item 4', 'item 5'])
  expect(hitsOf('/endless')).toEqual([
    '/endless',
    '/endless/1',
    '/endless/2',
    '/endless/3',
    '/endless/4',
    '/endless/5',
  ])
})

it('a page whose `next` is itself is read once', async () => {
  const items = await collectionItems(
    fetch,
    { id: `${base}/start`, type: 'OrderedCollection', first: `${base}/loop` },
    limits(),
  )
  expect(items).toEqual(['looped'])
  expect(hitsOf('/loop')).toEqual(['/loop'])
})

it('a page larger than the size limit is not read; a page of 150,000 items gives ITEMS_PER_PAGE', async () => {
  await expect(collectionItems(fetch, `${base}/huge`, limits())).rejects.toThrow(/too large/)
  const items = await collectionItems(fetch, `${base}/many`, limits())
  expect(items).toHaveLength(ITEMS_PER_PAGE)
})

it('a server that never answers is given up at the deadline, with two requests to it at most in flight', async () => {
  const started = Date.now()
  const results = await Promise.allSettled(
    Array.from({ length: 6 }, () => fetch(`${base}/hang`, Date.now() + 1500)),
  )
  expect(Date.now() - started).toBeLessThan(4000)
  expect(results.every((r) => r.status === 'rejected')).toBe(true)
  expect(hanging.max).toBe(2)
  release()
})

it('an answer trickled a byte at a time ends at the whole-request deadline', async () => {
  const client = createOutboundClient({ allowHttp: true, allowedPrivateAddresses: '127.0.0.0/8' })
  const started = Date.now()
  try {
    await expect(client.request('GET', `${base}/trickle`, {}, undefined, { timeoutMs: 300 })).rejects.toThrow(
      /took too long/,
    )
    // Four idle timeouts: 1.2 s, though the server never went quiet for 300 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1100)
    expect(Date.now() - started).toBeLessThan(5000)
  } finally {
    client.close()
  }
})

it("a thread whose replies hang does not hold up another account's backfill", async () => {
  // A remote post whose `replies` collection is on a server that never answers.
  const op = peer.actor('op')
  const root = peer.note(op, 'a post with hanging replies') as Record<string, unknown>
  root.replies = `${base}/hang`
  const found = await alice
    .get(`/api/v2/search?q=${encodeURIComponent(root.id as string)}&resolve=true&type=statuses`)
    .expect(200)
  const opened = await alice.get(`/api/v1/statuses/${found.body.statuses[0].id}/context`).expect(200)
  const refreshId = /id="([^"]+)"/.exec(opened.headers['mastodon-async-refresh'] ?? '')?.[1]
  expect(refreshId).toBeDefined()
  await eventually(async () => hanging.now > 0)

  // Meanwhile, an account with an outbox of its own is resolved: its posts arrive while the replies still hang.
  const writer = peer.actor('writer')
  const note = peer.note(writer, 'not held up')
  peer.objects.set(`${writer.uri}/outbox`, {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${writer.uri}/outbox`,
    type: 'OrderedCollection',
    orderedItems: [{ id: `${note.id}/activity`, type: 'Create', actor: writer.uri, object: note }],
  })
  const account = await alice
    .get(`/api/v2/search?q=${encodeURIComponent(`@writer@${peer.domain}`)}&resolve=true&type=accounts`)
    .expect(200)
  await eventually(async () => {
    const res = await alice.get(`/api/v1/accounts/${account.body.accounts[0].id}/statuses`).expect(200)
    return res.body.length === 1
  })
  expect(hanging.now).toBeGreaterThan(0)
  const running = await alice.get(`/api/v1_alpha/async_refreshes/${refreshId}`).expect(200)
  expect(running.body.async_refresh.status).toBe('running')

  // The hanging server gives up: the refresh finishes, with nothing found.
  release()
  const done = await eventually(async () => {
    const res = await alice.get(`/api/v1_alpha/async_refreshes/${refreshId}`).expect(200)
    return res.body.async_refresh.status === 'finished' ? res.body : undefined
  })
  expect(done.async_refresh.result_count).toBe(0)
})

it(`a thread's replies stop at ${REPLIES_MAX_STATUSES} posts, inline ones counted too`, async () => {
  const crowd = peer.actor('crowd')
  const root = peer.note(crowd, 'a crowded thread') as Record<string, unknown>
  const replies = Array.from({ length: 150 }, (_, i) => peer.note(crowd, `crowd ${i}`, root.id as string))
  const collection = `${root.id}/replies`
  root.replies = {
    id: collection,
    type: 'Collection',
    first: {
      type: 'CollectionPage',
      partOf: collection,
      items: replies.slice(0, 100),
      next: `${collection}/2`,
    },
  }
  peer.objects.set(`${collection}/2`, {
    id: `${collection}/2`,
    type: 'CollectionPage',
    partOf: collection,
    items: replies.slice(100),
  })
  const found = await alice
    .get(`/api/v2/search?q=${encodeURIComponent(root.id as string)}&resolve=true&type=statuses`)
    .expect(200)
  const db = stack.accounts.ctx.db
  const row = await db('statuses').where({ id: found.body.statuses[0].id }).first()
  // The root's own document is one of the budget.
  expect(await fetchReplies(stack.accounts.ctx.federation, fetch, row)).toBe(REPLIES_MAX_STATUSES - 1)
  expect(await db('statuses').where({ in_reply_to_id: row.id }).count('* as n').first()).toEqual({
    n: String(REPLIES_MAX_STATUSES - 1),
  })
}, 60_000)
