import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { createOf, deliverCreate, followAccepted as followAndAccept, startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

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

const followAccepted = (actor: PeerActor) => followAndAccept(stack, alice, peer, actor)

/**
 * Sends `note` (by `author`) in a Create and returns it as alice sees it, once the workers are done: the quote is
 * stored after the status, so waiting for the status alone raced with it.
 */
async function deliver(author: PeerActor, note: Record<string, unknown>) {
  const row = await deliverCreate(stack, peer, author, createOf(author, note))
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
