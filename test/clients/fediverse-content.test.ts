// What other fediverse software sends, read by masto.js 7 and megalodon 10 unchanged, field by field as Mastodon's
// docs name them (entities/Status `emojis` and `quote`, entities/Quote, entities/Account `emojis`, `group` and
// `moved`, entities/CustomEmoji, GET /api/v1/accounts/:id/statuses `pinned`). docs/mastodon-compatibility.md,
// "Clients", records what megalodon makes of a Mastodon 4.5 quote.
import generator from 'megalodon'
import { createRestAPIClient } from 'masto'
import sharp from 'sharp'
import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import { roost as cli } from '../discovery/helpers'
import { startMiniPeer } from '../federation/mini-peer'
import type { MiniPeer, PeerActor } from '../federation/mini-peer'
import { SCOPES } from './helpers'

const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

let stack: Stack
let peer: MiniPeer
let aliceToken: string
let emojiUrl: string
let groupId: string
let oldId: string
let nextId: string
let aliceId: string
let pinnedId: string
let quoted: { id: string }
let quoting: { id: string }
let community: PeerActor

const masto = () => createRestAPIClient({ url: stack.url, accessToken: aliceToken, timeout: 30_000 })
const megalodon = () => generator('mastodon', stack.url, aliceToken, 'roost-e2e')

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  // An admin adds :blobcat: (admin API); alice uses it in her name and a post.
  const boss = await signUp(stack, { username: 'boss' })
  expect((await cli(stack, 'accounts', 'role', 'boss', 'admin')).code).toBe(0)
  const adminToken = await stack.userToken('read write admin:read admin:write', boss)
  const image = await sharp({ create: { width: 32, height: 32, channels: 4, background: '#f80' } })
    .png()
    .toBuffer()
  const form = new FormData()
  form.set('shortcode', 'blobcat')
  form.set('category', 'Blobs')
  form.set('image', new Blob([image], { type: 'image/png' }), 'blobcat.png')
  const added = await fetch(`${stack.url}/api/v1/admin/custom_emojis`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}` },
    body: form,
  })
  expect(added.status).toBe(200)

  aliceToken = await stack.userToken(SCOPES, await stack.createUser({ username: 'alice' }))
  const m = masto()
  const me = await m.v1.accounts.updateCredentials({ displayName: 'Alice :blobcat:' })
  aliceId = me.id
  emojiUrl = me.emojis[0]!.url
  const pinned = await m.v1.statuses.create({ status: 'pinned :blobcat:', visibility: 'public' })
  await m.v1.statuses.create({ status: 'not pinned', visibility: 'public' })
  await m.v1.statuses.$select(pinned.id).pin()
  pinnedId = pinned.id
  quoted = await m.v1.statuses.create({ status: 'quote me', visibility: 'public' })
  quoting = await m.v1.statuses.create({ status: 'quoting', quotedStatusId: quoted.id })

  // A Group actor (a Lemmy community's shape) and an account that moved, from the mini-peer.
  community = peer.actor('community', { name: 'A community', type: 'Group' })
  const old = peer.actor('old', { name: 'Old account' })
  const next = peer.actor('new', { name: 'New account', extra: { alsoKnownAs: [old.uri] } })
  const resolve = async (actor: PeerActor) => {
    const found = await m.v2.search.list({
      q: `@${actor.username}@${peer.domain}`,
      resolve: true,
      type: 'accounts',
    })
    expect(found.accounts).toHaveLength(1)
    return found.accounts[0]!.id
  }
  groupId = await resolve(community)
  oldId = await resolve(old)
  nextId = await resolve(next)
  // mastodon/mastodon: app/serializers/activitypub/move_serializer.rb's shape.
  const res = await peer.post(`${stack.url}/inbox`, old, {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${old.uri}#moves/1`,
    type: 'Move',
    actor: old.uri,
    object: old.uri,
    target: next.uri,
  })
  expect(res.status).toBe(202)
  await eventually(async () => ((await m.v1.accounts.$select(oldId).fetch()).moved ? true : undefined))
}, 240_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

describe('masto.js', () => {
  it('reads `emojis` of a status and an account, and /api/v1/custom_emojis', async () => {
    const m = masto()
    const emoji = {
      shortcode: 'blobcat',
      url: emojiUrl,
      staticUrl: emojiUrl,
      visibleInPicker: true,
      category: 'Blobs',
    }
    expect(await m.v1.customEmojis.list()).toEqual([emoji])
    expect((await m.v1.statuses.$select(pinnedId).fetch()).emojis).toEqual([emoji])
    const account = await m.v1.accounts.$select(aliceId).fetch()
    expect(account).toMatchObject({ displayName: 'Alice :blobcat:', emojis: [emoji] })
  })

  it("reads a status's `quote` (entities/Quote: `state`, `quoted_status`)", async () => {
    const s = await masto().v1.statuses.$select(quoting.id).fetch()
    expect(s.quote).toMatchObject({
      state: 'accepted',
      quotedStatus: { id: quoted.id, content: '<p>quote me</p>' },
    })
  })

  it('sets and reads the default quote policy (CredentialAccount `source.quote_policy`, Mastodon 4.5)', async () => {
    const m = masto()
    expect((await m.v1.accounts.verifyCredentials()).source.quotePolicy).toBe('public')
    // masto.js 7.12 reads `source.quotePolicy` but its update parameters lack it: the same request, untyped.
    const quotePolicy = (policy: string) =>
      ({ source: { quotePolicy: policy } }) as unknown as Parameters<
        typeof m.v1.accounts.updateCredentials
      >[0]
    const saved = await m.v1.accounts.updateCredentials(quotePolicy('nobody'))
    expect(saved.source.quotePolicy).toBe('nobody')
    const post = await m.v1.statuses.create({ status: 'not quotable by default', visibility: 'public' })
    expect(post.quoteApproval).toMatchObject({ automatic: [], manual: [] })
    await m.v1.accounts.updateCredentials(quotePolicy('public'))
  })

  it('reads `group: true` of a Group actor and `group: false` of a person', async () => {
    const m = masto()
    expect(await m.v1.accounts.$select(groupId).fetch()).toMatchObject({
      group: true,
      bot: false,
      acct: `community@${peer.domain}`,
      displayName: 'A community',
    })
    expect((await m.v1.accounts.$select(nextId).fetch()).group).toBe(false)
  })

  it('reads `moved` of an account that moved (an Account), absent on the new one', async () => {
    const m = masto()
    const old = await m.v1.accounts.$select(oldId).fetch()
    expect(old.moved).toMatchObject({ id: nextId, acct: `new@${peer.domain}`, displayName: 'New account' })
    expect((await m.v1.accounts.$select(nextId).fetch()).moved).toBeUndefined()
  })

  it('reads pinned statuses (`?pinned=true`), each with `pinned: true` for their author', async () => {
    const pinned = await masto().v1.accounts.$select(aliceId).statuses.list({ pinned: true })
    expect(pinned.map((s) => [s.id, s.pinned])).toEqual([[pinnedId, true]])
  })
})

describe('megalodon', () => {
  it('reads `emojis` of a status and an account, and /api/v1/custom_emojis', async () => {
    const c = megalodon()
    const emoji = {
      shortcode: 'blobcat',
      url: emojiUrl,
      static_url: emojiUrl,
      visible_in_picker: true,
      category: 'Blobs',
    }
    expect((await c.getInstanceCustomEmojis()).data).toEqual([emoji])
    expect((await c.getStatus(pinnedId)).data.emojis).toEqual([emoji])
    expect((await c.getAccount(aliceId)).data).toMatchObject({
      display_name: 'Alice :blobcat:',
      emojis: [emoji],
    })
  })

  it("reads a status's quote as megalodon 10 does: `quote: true` (it predates Mastodon 4.5's Quote entity)", async () => {
    const s = (await megalodon().getStatus(quoting.id)).data
    // megalodon's Mastodon converter turns a `quote` into a boolean and copies the object into `reblog` as if it were
    // a Status (Fedibird's form): the Quote entity's own fields are not read (docs/mastodon-compatibility.md).
    expect(s.quote).toBe(true)
    expect(s.content).toBe('<p>quoting</p>')
  })

  it('reads `group` and `moved` of accounts', async () => {
    const c = megalodon()
    expect((await c.getAccount(groupId)).data).toMatchObject({
      group: true,
      acct: `community@${peer.domain}`,
    })
    expect((await c.getAccount(oldId)).data.moved).toMatchObject({ id: nextId, acct: `new@${peer.domain}` })
  })

  it('reads pinned statuses (`pinned: true`)', async () => {
    const pinned = (await megalodon().getAccountStatuses(aliceId, { pinned: true })).data
    expect(pinned.map((s) => [s.id, s.pinned])).toEqual([[pinnedId, true]])
  })
})
