import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public'

/**
 * The older quote forms other software still sends (docs/federation.md, "Quotes"), read as Mastodon 4.5 reads them
 * (mastodon/mastodon: app/lib/activitypub/parser/status_parser.rb: `quote_uri` is the first of `quote`,
 * `_misskey_quote`, `quoteUrl`, `quoteUri`, and `legacy_quote?` is `!@object.key?('quote')`). A legacy quote carries
 * no `quoteAuthorization`, so Mastodon's VerifyQuoteService accepts it only when it quotes its own author; any other
 * stays `pending`, shown with `quoted_status: null` (its text's "RE: link" is what readers see).
 *
 * - Misskey: misskey-dev/misskey packages/backend/src/core/activitypub/ApRendererService.ts, renderNote, sets both
 *   `_misskey_quote: quote,` and `quoteUrl: quote,` (the quoted note's uri) and appends `\n\nRE: ${quote}` to the text.
 * - Fedibird: `quoteUri` (the quoted post's id), with the same "RE:" text.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let misskey: PeerActor
let fedibird: PeerActor
let n = 0

const inbox = () => `${stack.url}/inbox`

async function followAccepted(actor: PeerActor) {
  const found = await alice
    .get(
      `/api/v2/search?q=${encodeURIComponent(`@${actor.username}@${peer.domain}`)}&resolve=true&type=accounts`,
    )
    .expect(200)
  const id = found.body.accounts[0].id as string
  await alice.post(`/api/v1/accounts/${id}/follow`).expect(200)
  const follow = await eventually(async () =>
    peer.received.find((r) => r.activity.type === 'Follow' && r.activity.object === actor.uri),
  )
  await peer.post(inbox(), actor, {
    id: `${actor.uri}#accepts/follows/${id}`,
    type: 'Accept',
    actor: actor.uri,
    object: follow.activity,
  })
  await eventually(async () => {
    const r = (await alice.get(`/api/v1/accounts/relationships?id[]=${id}`).expect(200)).body[0]
    return r.following || undefined
  })
}

/** Sends `note` (by `author`) in a Create and returns it as alice sees it. */
async function deliver(author: PeerActor, note: Record<string, unknown>) {
  const res = await peer.post(inbox(), author, {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${note.id as string}/activity`,
    type: 'Create',
    actor: author.uri,
    to: [PUBLIC],
    object: note,
  })
  expect(res.status).toBe(202)
  const row = await eventually(() => stack.accounts.ctx.db('statuses').where({ uri: note.id }).first())
  return (await alice.get(`/api/v1/statuses/${row.id}`).expect(200)).body
}

/** A Note as `author`'s server shapes it, quoting `quoted` with `fields`. */
function quoteNote(author: PeerActor, quoted: string, fields: Record<string, unknown>) {
  const id = `${author.uri}/notes/legacy${++n}`
  return {
    id,
    type: 'Note',
    attributedTo: author.uri,
    to: [PUBLIC],
    cc: [`${author.uri}/followers`],
    content: `<p>look<br><br>RE: <a href="${quoted}">${quoted}</a></p>`,
    published: new Date().toISOString(),
    ...fields,
  }
}

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow' })
  misskey = peer.actor('mk', { name: 'Misskey user' })
  fedibird = peer.actor('fb', { name: 'Fedibird user' })
  await followAccepted(misskey)
  await followAccepted(fedibird)
}, 240_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

describe('legacy quotes', () => {
  it("a Misskey note quoting alice's post (`_misskey_quote`, `quoteUrl`) is a pending quote of it", async () => {
    const post = (await alice.post('/api/v1/statuses', { status: 'mine', visibility: 'public' }).expect(200))
      .body
    const uri = `${stack.url}/users/alice/statuses/${post.id}`
    const status = await deliver(misskey, quoteNote(misskey, uri, { _misskey_quote: uri, quoteUrl: uri }))
    expect(status.quote).toEqual({ state: 'pending', quoted_status: null })
    expect(status.content).toContain(`RE: <a href="${uri}"`)
    const row = await stack.accounts.ctx.db('quotes').where({ status_id: status.id }).first()
    expect(row).toMatchObject({ quoted_status_id: post.id, legacy: true })
  })

  it('a Misskey note quoting its own author is accepted without a stamp, as Mastodon fast-tracks it', async () => {
    const own = peer.note(misskey, 'my own note')
    await deliver(misskey, { ...own, '@context': undefined })
    const status = await deliver(
      misskey,
      quoteNote(misskey, own.id, { _misskey_quote: own.id, quoteUrl: own.id }),
    )
    expect(status.quote).toMatchObject({
      state: 'accepted',
      quoted_status: { uri: own.id, content: '<p>my own note</p>' },
    })
  })

  it("a Misskey note with `quoteUrl` only, and a Fedibird note's `quoteUri`, are read the same way", async () => {
    const post = (await alice.post('/api/v1/statuses', { status: 'again', visibility: 'public' }).expect(200))
      .body
    const uri = `${stack.url}/users/alice/statuses/${post.id}`
    const byUrl = await deliver(misskey, quoteNote(misskey, uri, { quoteUrl: uri }))
    expect(byUrl.quote).toEqual({ state: 'pending', quoted_status: null })
    const byUri = await deliver(fedibird, quoteNote(fedibird, uri, { quoteUri: uri }))
    expect(byUri.quote).toEqual({ state: 'pending', quoted_status: null })
    // Fedibird's own-author quote: accepted.
    const own = peer.note(fedibird, 'fedibird own')
    await deliver(fedibird, { ...own, '@context': undefined })
    const self = await deliver(fedibird, quoteNote(fedibird, own.id, { quoteUri: own.id }))
    expect(self.quote).toMatchObject({ state: 'accepted', quoted_status: { uri: own.id } })
  })
})
