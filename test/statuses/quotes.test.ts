import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { eventually, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { deliverCreate, createOf, startMiniPeer } from '../federation/mini-peer'
import type { MiniPeer, PeerActor } from '../federation/mini-peer'

/**
 * Quotes, the rest of Mastodon 4.5 (docs/statuses.md, "Quotes"): the default quote policy in `source[quote_policy]`
 * (verify_credentials, update_credentials, preferences, new posts), the `quoted_update` notification when a quoted
 * post is edited, a quote kept through edits and a policy changed by one, and, in the Note sent to other servers,
 * Mastodon's "RE:" paragraph and the quoted author addressed (its silent mention).
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let bob: TestUser
let carl: PeerActor

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  carl = peer.actor('carl')
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
}, 120_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const patch = (user: TestUser, body: object) =>
  stack.api().patch('/api/v1/accounts/update_credentials').set(bearer(user.token)).send(body)
const put = (user: TestUser, id: string, body: object) =>
  stack.api().put(`/api/v1/statuses/${id}`).set(bearer(user.token)).send(body)

it('keeps the default quote policy in source[quote_policy], and new posts take it', async () => {
  const before = (await alice.get('/api/v1/accounts/verify_credentials').expect(200)).body
  expect(before.source.quote_policy).toBe('public')
  const saved = (await patch(alice, { source: { quote_policy: 'followers' } }).expect(200)).body
  expect(saved.source.quote_policy).toBe('followers')
  expect((await alice.get('/api/v1/preferences').expect(200)).body['posting:default:quote_policy']).toBe(
    'followers',
  )
  // A value Mastodon does not know is ignored, like the other source settings.
  await patch(alice, { source: { quote_policy: 'everyone' } }).expect(200)
  const after = (await alice.get('/api/v1/accounts/verify_credentials').expect(200)).body
  expect(after.source.quote_policy).toBe('followers')
  const post = (await alice.post('/api/v1/statuses', { status: 'default policy' }).expect(200)).body
  expect(post.quote_approval).toMatchObject({ automatic: ['followers'], manual: [] })
  await patch(alice, { source: { quote_policy: 'public' } }).expect(200)
})

it('notifies those who quoted a post when it is edited (quoted_update, on the quoting post), once per quote', async () => {
  const original = (await alice.post('/api/v1/statuses', { status: 'first words' }).expect(200)).body
  const quote = (
    await bob.post('/api/v1/statuses', { status: 'bob quotes', quoted_status_id: original.id }).expect(200)
  ).body
  expect(quote.quote).toMatchObject({ state: 'accepted' })
  await put(alice, original.id, { status: 'second words' }).expect(200)
  await stack.drain()
  await put(alice, original.id, { status: 'third words' }).expect(200)
  await stack.drain()
  const notes = (await bob.get('/api/v1/notifications?types[]=quoted_update').expect(200)).body as {
    type: string
    account: { id: string }
    status: { id: string; quote: { quoted_status: { content: string } } }
  }[]
  // The newest replaces the older one (Mastodon's LocalNotificationWorker).
  expect(notes).toHaveLength(1)
  expect(notes[0]).toMatchObject({
    type: 'quoted_update',
    account: { id: alice.id },
    status: { id: quote.id, quote: { quoted_status: { content: '<p>third words</p>' } } },
  })
  // The editor is not told about their own edit.
  expect((await alice.get('/api/v1/notifications?types[]=quoted_update').expect(200)).body).toEqual([])
})

it('keeps a quote through edits, and an edit may change who may quote', async () => {
  const original = (await alice.post('/api/v1/statuses', { status: 'quotable' }).expect(200)).body
  const quote = (
    await bob.post('/api/v1/statuses', { status: 'v1', quoted_status_id: original.id }).expect(200)
  ).body
  const edited = (await put(bob, quote.id, { status: 'v2' }).expect(200)).body
  expect(edited).toMatchObject({
    content: '<p>v2</p>',
    quote: { state: 'accepted', quoted_status: { id: original.id } },
  })
  const closed = (
    await put(alice, original.id, { status: 'quotable, now closed', quote_approval_policy: 'nobody' }).expect(
      200,
    )
  ).body
  expect(closed.quote_approval).toMatchObject({ automatic: [], manual: [] })
  expect((await bob.get(`/api/v1/statuses/${original.id}`).expect(200)).body.quote_approval).toMatchObject({
    current_user: 'denied',
  })
  const bad = await put(alice, original.id, { status: 'x', quote_approval_policy: 'everyone' }).expect(422)
  expect(bad.body).toEqual({ error: 'Record invalid' })
})

it('sends other servers the RE: paragraph and addresses the quoted author, as Mastodon 4.5', async () => {
  // carl's post, known here (it mentions alice).
  const note = peer.note(carl, 'carl says')
  Object.assign(note, {
    cc: [`${stack.url}/users/alice`],
    tag: [{ type: 'Mention', href: `${stack.url}/users/alice`, name: '@alice' }],
    url: `${peer.base}/@carl/1`,
    // Quotable by anyone, as a Mastodon 4.5 Note says it.
    interactionPolicy: { canQuote: { automaticApproval: ['https://www.w3.org/ns/activitystreams#Public'] } },
  })
  const row = await deliverCreate(stack, peer, carl, createOf(carl, note))
  const quote = (
    await alice
      .post('/api/v1/statuses', { status: 'alice quotes carl', quoted_status_id: row.id })
      .expect(200)
  ).body
  // carl does not follow alice: the Create reaches his inbox as the quoted author's.
  const create = await eventually(async () =>
    peer.received.find(
      (r) =>
        r.activity.type === 'Create' &&
        (r.activity.object as { id?: string }).id === `${stack.url}/users/alice/statuses/${quote.id}`,
    ),
  )
  const object = create.activity.object as {
    content: string
    cc: string[]
    quote: string
    contentMap: object
  }
  expect(object.quote).toBe(note.id)
  expect(object.cc).toContain(carl.uri)
  expect(object.content).toBe(
    `<p class="quote-inline">RE: <a href="${peer.base}/@carl/1" target="_blank" rel="nofollow noopener" translate="no">` +
      `<span class="invisible">http://</span><span class="">${peer.base.slice(7)}/@carl/1</span><span class="invisible"></span></a></p>` +
      '<p>alice quotes carl</p>',
  )
  // The client API shows the text as written (docs/mastodon-compatibility.md, "Content from other software").
  expect(quote.content).toBe('<p>alice quotes carl</p>')
  // And the QuoteRequest went too.
  expect(peer.received.some((r) => r.activity.type === 'QuoteRequest')).toBe(true)
})
