import { MAX_ANCESTORS_FETCHED } from '../../apps/accounts/src/federation/inbox/statuses'
import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/**
 * Statuses Roost does not have yet (docs/federation.md, "Incoming statuses"): the unknown parent of an incoming
 * reply is fetched from its server (and its own, up to MAX_ANCESTORS_FETCHED) so the thread holds it; a search
 * for a remote status's URI or page URL with `resolve=true` fetches it, as Mastodon's ResolveURLService.
 */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

let stack: Stack
let peer: MiniPeer
let bob: TestUser // follows mallory
let mallory: PeerActor
let carol: PeerActor // nobody here knows her
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  mallory = peer.actor('mallory')
  carol = peer.actor('carol')
  bob = await signUp(stack, { username: 'bob' })
  const found = await bob
    .get(`/api/v2/search?q=${encodeURIComponent(`@mallory@${peer.domain}`)}&resolve=true&type=accounts`)
    .expect(200)
  await bob.post(`/api/v1/accounts/${found.body.accounts[0].id}/follow`).expect(200)
  const followSent = await eventually(async () => peer.received.find((r) => r.activity.type === 'Follow'))
  const accept = {
    id: `${mallory.uri}#accepts/1`,
    type: 'Accept',
    actor: mallory.uri,
    object: followSent.activity,
  }
  expect((await peer.post(`${stack.url}/inbox`, mallory, accept)).status).toBe(202)
  await eventually(async () => {
    const r = (await bob.get(`/api/v1/accounts/relationships?id[]=${found.body.accounts[0].id}`).expect(200))
      .body[0]
    return r.following || undefined
  })
}, 240_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const db = () => stack.accounts.ctx.db
/** mallory's Create of `object`, handled. */
async function create(object: { id: string; to: string[]; cc: string[] }) {
  const activity = {
    id: `${object.id}/activity`,
    type: 'Create',
    actor: mallory.uri,
    to: object.to,
    cc: object.cc,
    object,
  }
  expect((await peer.post(`${stack.url}/inbox`, mallory, activity)).status).toBe(202)
  await stack.drain(120_000)
  const row = await db()('statuses').where({ uri: object.id }).first()
  expect(row).toBeDefined()
  return row as { id: string; in_reply_to_id: string | null }
}
const contentsOf = (statuses: { content: string }[]) => statuses.map((s) => s.content)

it("fetches an incoming reply's unknown parent and grandparent, threading all three", async () => {
  const root = peer.note(carol, 'the root')
  const middle = peer.note(carol, 'the middle', root.id)
  const reply = peer.note(mallory, 'the reply', middle.id, { served: false })
  const row = await create(reply)
  const context = (await bob.get(`/api/v1/statuses/${row.id}/context`).expect(200)).body
  expect(contentsOf(context.ancestors)).toEqual(['<p>the root</p>', '<p>the middle</p>'])
  expect(context.ancestors.map((s: { account: { acct: string } }) => s.account.acct)).toEqual([
    `carol@${peer.domain}`,
    `carol@${peer.domain}`,
  ])
  const parent = await db()('statuses').where({ uri: middle.id }).first()
  expect(row.in_reply_to_id).toBe(parent.id)
  // The root's thread, seen from it, has the two below.
  const rootRow = await db()('statuses').where({ uri: root.id }).first()
  const below = (await bob.get(`/api/v1/statuses/${rootRow.id}/context`).expect(200)).body
  expect(contentsOf(below.descendants)).toEqual(['<p>the middle</p>', '<p>the reply</p>'])
})

it(`fetches at most ${MAX_ANCESTORS_FETCHED} unknown ancestors`, async () => {
  let above: string | undefined
  const chain: string[] = []
  for (let i = 0; i < MAX_ANCESTORS_FETCHED + 2; i++) {
    const object = peer.note(carol, `link ${i}`, above)
    chain.push(object.id)
    above = object.id
  }
  const row = await create(peer.note(mallory, 'at the end of a long chain', above, { served: false }))
  const context = (await bob.get(`/api/v1/statuses/${row.id}/context`).expect(200)).body
  expect(context.ancestors).toHaveLength(MAX_ANCESTORS_FETCHED)
  expect(await db()('statuses').whereIn('uri', chain).count('* as n')).toEqual([
    { n: String(MAX_ANCESTORS_FETCHED) },
  ])
})

it('stores a reply whose parent cannot be fetched, without a parent', async () => {
  const row = await create(
    peer.note(mallory, 'answering the void', `${carol.uri}/statuses/gone`, { served: false }),
  )
  expect(row.in_reply_to_id).toBeNull()
  expect((await bob.get(`/api/v1/statuses/${row.id}`).expect(200)).body.in_reply_to_id).toBeNull()
})

it('search with resolve=true fetches a remote status by its URI, or by the URL of its page; without, only known ones', async () => {
  const search = (q: string, resolve: boolean) =>
    bob
      .get(`/api/v2/search?type=statuses&q=${encodeURIComponent(q)}${resolve ? '&resolve=true' : ''}`)
      .expect(200)

  const byUri = peer.note(carol, 'find me by my id')
  expect((await search(byUri.id, false)).body.statuses).toEqual([])
  expect(await db()('statuses').where({ uri: byUri.id }).first()).toBeUndefined()
  const found = (await search(byUri.id, true)).body.statuses
  expect(found).toHaveLength(1)
  expect(found[0]).toMatchObject({
    uri: byUri.id,
    content: '<p>find me by my id</p>',
    account: { acct: `carol@${peer.domain}` },
  })
  // Known now: found without resolve too.
  expect((await search(byUri.id, false)).body.statuses.map((s: { id: string }) => s.id)).toEqual([
    found[0].id,
  ])

  const page = `${peer.base}/@carol/page-of-a-note`
  const byPage = peer.note(carol, 'find me by my page', undefined, { page })
  const viaPage = (await search(page, true)).body.statuses
  expect(viaPage).toHaveLength(1)
  expect(viaPage[0]).toMatchObject({ uri: byPage.id, url: page })
  expect((await search(page, false)).body.statuses.map((s: { id: string }) => s.id)).toEqual([viaPage[0].id])

  // A URL that is not a status, or a document claiming another host's id: nothing.
  expect((await search(`${peer.base}/nothing-here`, true)).body.statuses).toEqual([])
  const forged = {
    ...peer.note(carol, 'forged', undefined, { served: false }),
    id: 'http://elsewhere.example/statuses/1',
  }
  peer.objects.set(`${peer.base}/forged`, forged)
  expect((await search(`${peer.base}/forged`, true)).body.statuses).toEqual([])
  expect(await db()('statuses').where({ uri: forged.id }).first()).toBeUndefined()
})

it('refuses resolve=true without a token (401) and fetches nothing', async () => {
  const object = peer.note(carol, 'not for strangers')
  const res = await stack
    .api()
    .get(`/api/v2/search?q=${encodeURIComponent(object.id)}&resolve=true`)
    .expect(401)
  expect(res.body.error).toMatch(/not supported without authentication/)
  expect(await db()('statuses').where({ uri: object.id }).first()).toBeUndefined()
})
