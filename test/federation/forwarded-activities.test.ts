import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'
import { startPeer } from './peer'
import type { Peer } from './peer'

const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)
jest.setTimeout(240_000)

/**
 * Activities that reach Roost through a server other than their author's (docs/federation.md, "Forwarded
 * activities"): a reply from the Fedify peer to alice's post, carrying bob's Linked Data signature (made by Fedify),
 * is forwarded by Roost to alice's followers on a third server with the signature intact (Fedify verifies it
 * there); the same kind of reply forwarded to Roost by a third server is accepted when its author's LD signature
 * or FEP-8b32 integrity proof (made by Fedify) verifies, refused when the forwarder changed it, and a forwarded post
 * without any is dropped (as Mastodon).
 */
let stack: Stack
let peer: Peer
let mini: MiniPeer
let alice: TestUser
let relay: PeerActor
let follower: PeerActor
let post: string
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startPeer({ users: ['bob', 'carol'], httpHosts: [new URL(stack.url).host] })
  mini = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice' })
  relay = mini.actor('relay')
  follower = mini.actor('follower')
  // follower (on the third server) follows alice.
  const follow = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${follower.uri}#follows/1`,
    type: 'Follow',
    actor: follower.uri,
    object: `${stack.url}/users/alice`,
  }
  expect(await mini.post(inbox(), follower, follow)).toMatchObject({ status: 202 })
  await eventually(() => db()('follows').where({ target_account_id: alice.id }).first())
  const status = await alice.post('/api/v1/statuses', { status: 'Replies welcome', visibility: 'public' })
  post = status.body.uri
}, 240_000)
afterAll(async () => {
  await peer?.stop()
  await mini?.stop()
  await stack?.stop()
})

const db = () => stack.accounts.ctx.db
const inbox = () => `${stack.url}/inbox`
const statusOf = (uri: string) => db()('statuses').where({ uri }).first()
/** Waits until the worker has handled the activity (its id is kept), whatever it did. */
const handled = (id: unknown) =>
  eventually(() =>
    db()('inbox_activities')
      .where({ uri: String(id) })
      .first(),
  )
const tamper = (json: Record<string, unknown>) => ({
  ...json,
  object: { ...(json.object as Record<string, unknown>), content: '<p>Send me your password</p>' },
})

it("alice's public post goes out with her LD signature, which Fedify verifies", async () => {
  const create = await eventually(async () =>
    mini.received.find(
      (r) => r.activity.type === 'Create' && (r.activity.object as { id?: string })?.id === post,
    ),
  )
  expect(create.activity.signature).toMatchObject({
    type: 'RsaSignature2017',
    creator: `${stack.url}/users/alice#main-key`,
  })
  expect(await peer.verifyLd(create.activity)).toEqual({ verified: true })
  const changed = {
    ...create.activity,
    object: { ...(create.activity.object as object), content: 'changed' },
  }
  expect(await peer.verifyLd(changed)).toEqual({ verified: false })
})

it("a reply signed by its author (Fedify's LD signature) is forwarded to alice's followers with the signature intact", async () => {
  const { json, note } = await peer.signedCreate({ inReplyTo: post, content: '<p>Nice post</p>', ld: true })
  expect(json.signature).toMatchObject({ type: 'RsaSignature2017', creator: `${peer.actor('bob')}#main-key` })
  expect(await peer.deliver(inbox(), json, 'bob')).toEqual({ status: 202 })
  const reply = await eventually(() => statusOf(note))
  expect(reply).toMatchObject({ text: '<p>Nice post</p>', visibility: 'public' })
  // Forwarded as it came, signed over HTTP by alice, to her follower's server (not to bob's).
  const forwarded = await eventually(async () => mini.received.find((r) => r.activity.id === json.id))
  expect(forwarded.activity).toEqual(json)
  expect(forwarded.headers.signature).toContain(`keyId="${stack.url}/users/alice#main-key"`)
  // The follower's server can still tell it is bob's: Fedify verifies the LD signature Roost passed on.
  expect(await peer.verifyLd(forwarded.activity)).toEqual({ verified: true })
})

it("a reply forwarded by a third server is accepted when its author's LD signature verifies, refused when changed", async () => {
  const { json, note } = await peer.signedCreate({
    inReplyTo: post,
    content: '<p>Through a relay</p>',
    ld: true,
    as: 'carol',
  })
  expect(await mini.post(inbox(), relay, json)).toMatchObject({ status: 202 })
  const reply = await eventually(() => statusOf(note))
  const carol = await db()('accounts').where({ id: reply.account_id }).first()
  expect(carol.uri).toBe(peer.actor('carol'))
  expect(reply.text).toBe('<p>Through a relay</p>')

  const other = await peer.signedCreate({
    inReplyTo: post,
    content: '<p>Original</p>',
    ld: true,
    as: 'carol',
  })
  expect(await mini.post(inbox(), relay, tamper(other.json))).toMatchObject({ status: 202 })
  await handled(other.json.id)
  // Not carol's words: dropped.
  expect(await statusOf(other.note)).toBeUndefined()
})

it('a reply forwarded with an FEP-8b32 integrity proof is accepted, and refused when changed', async () => {
  const { json, note } = await peer.signedCreate({
    inReplyTo: post,
    content: '<p>Proven</p>',
    proof: true,
    as: 'carol',
  })
  expect(json.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'eddsa-jcs-2022' })
  expect(json.signature).toBeUndefined()
  expect(await mini.post(inbox(), relay, json)).toMatchObject({ status: 202 })
  expect(await eventually(() => statusOf(note))).toMatchObject({ text: '<p>Proven</p>' })
  const carol = await db()('accounts')
    .where({ uri: peer.actor('carol') })
    .first()
  expect(carol.assertion_keys).toEqual([
    {
      id: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/users\/carol#/),
      publicKeyMultibase: expect.any(String),
    },
  ])

  const other = await peer.signedCreate({
    inReplyTo: post,
    content: '<p>Original</p>',
    proof: true,
    as: 'carol',
  })
  expect(await mini.post(inbox(), relay, tamper(other.json))).toMatchObject({ status: 202 })
  await handled(other.json.id)
  expect(await statusOf(other.note)).toBeUndefined()
})

it('a forwarded post its author did not sign is dropped, as Mastodon drops it; his own delivery is taken', async () => {
  const dave = mini.actor('dave')
  const note = mini.note(dave, 'What dave wrote', post)
  // His server serves the note: nothing but the missing signature stops Roost from having it.
  expect((await fetch(note.id, { headers: { accept: 'application/activity+json' } })).status).toBe(200)
  const create = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${note.id}/activity`,
    type: 'Create',
    actor: dave.uri,
    object: { ...note, content: '<p>What the relay wants dave to say</p>' },
  }
  expect(await mini.post(inbox(), relay, create)).toMatchObject({ status: 202 })
  await handled(create.id)
  expect(await statusOf(note.id)).toBeUndefined()
  expect(await db()('accounts').where({ uri: dave.uri }).first()).toBeUndefined()

  const own = { ...create, id: `${note.id}/activity-own`, object: note }
  expect(await mini.post(inbox(), dave, own)).toMatchObject({ status: 202 })
  expect(await eventually(() => statusOf(note.id))).toMatchObject({ text: '<p>What dave wrote</p>' })
})
