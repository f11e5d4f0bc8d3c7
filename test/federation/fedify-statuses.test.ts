import { bearer, eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { PNG, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startPeer } from './peer'
import type { InboxEntry, Peer } from './peer'

// Posts across servers, outgoing (docs/federation.md, "Posts across servers"): the Fedify peer follows a Roost
// user and receives her posts, edits, deletions, boosts and favourites, every one signature-checked by Fedify.
let stack: Stack
let peer: Peer
let alice: TestUser
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startPeer({ users: ['bob', 'carol'], httpHosts: [new URL(stack.url).host] })
  alice = await signUp(stack, { username: 'alice' })
  // bob@peer follows alice (unlocked: accepted at once).
  const { followId } = await peer.follow(`${stack.url}/users/alice`)
  await received((a) => a.type === 'Accept' && a.object === followId)
})
afterAll(async () => {
  await peer?.stop()
  await stack?.stop()
})

// Generous deadlines: the full suite runs on a loaded shared machine, and a delivery may be retried.
const WAIT_MS = 45_000
jest.setTimeout(4 * WAIT_MS)
const PUBLIC = ['https://www.w3.org/ns/activitystreams#Public', 'as:Public', 'Public']
const aliceUri = () => `${stack.url}/users/alice`
const followers = () => `${aliceUri()}/followers`
const received = (match: (a: InboxEntry) => boolean) =>
  eventually(async () => (await peer.log()).inbox.find(match), WAIT_MS)
const list = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]) as string[]
const isPublic = (v: string) => PUBLIC.includes(v)
const db = () => stack.accounts.ctx.db
const noteUri = (id: string) => `${aliceUri()}/statuses/${id}`
const objectOf = (a: InboxEntry) => a.json.object as Record<string, unknown>
const createOf = (id: string) =>
  received((a) => a.type === 'Create' && (objectOf(a)?.id ?? a.object) === noteUri(id))
const fetchNote = (id: string, headers: Record<string, string> = {}) =>
  fetch(noteUri(id), { headers: { Accept: 'application/activity+json', ...headers } })
/** A GET of `url` signed by one of the peer's users with Fedify's signRequest. */
const signedFetch = async (url: string, as: string) => {
  const headers = { accept: 'application/activity+json' }
  const signed = await peer.sign({ method: 'GET', url, headers }, as)
  return fetch(url, { headers: signed.headers })
}

describe('a post reaches the follower as Create(Note), addressed as Mastodon addresses it', () => {
  it('public: to Public, cc the followers; the Note carries content, language, tags and its URL', async () => {
    const res = await alice
      .post('/api/v1/statuses', { status: 'Hello #fediverse', language: 'en', spoiler_text: 'cw' })
      .expect(200)
    const create = await createOf(res.body.id)
    expect(create.actor).toBe(aliceUri())
    const note = objectOf(create)
    expect(note).toMatchObject({
      type: 'Note',
      id: noteUri(res.body.id),
      attributedTo: aliceUri(),
      url: `${stack.url}/@alice/${res.body.id}`,
      summary: 'cw',
      sensitive: true,
    })
    expect(list(note.to).filter(isPublic)).toHaveLength(1)
    expect(list(note.cc)).toEqual([followers()])
    expect(String(note.content)).toContain('Hello')
    expect(JSON.stringify(note.contentMap ?? note)).toContain('en')
    expect(JSON.stringify(note.tag)).toContain('#fediverse')
    expect(list(create.json.to).filter(isPublic)).toHaveLength(1)
  })

  it('unlisted: to the followers, cc Public; private: to the followers only', async () => {
    const unlisted = await alice
      .post('/api/v1/statuses', { status: 'quiet', visibility: 'unlisted' })
      .expect(200)
    const u = objectOf(await createOf(unlisted.body.id))
    expect(list(u.to)).toEqual([followers()])
    expect(list(u.cc).filter(isPublic)).toHaveLength(1)

    const priv = await alice
      .post('/api/v1/statuses', { status: 'friends only', visibility: 'private' })
      .expect(200)
    const p = objectOf(await createOf(priv.body.id))
    expect(list(p.to)).toEqual([followers()])
    expect(list(p.cc)).toEqual([])
  })

  it('direct: a remote @mention is resolved by WebFinger when posting, and only that account receives it', async () => {
    const res = await alice
      .post('/api/v1/statuses', { status: `@carol@${peer.host} just you`, visibility: 'direct' })
      .expect(200)
    // The mention is resolved in the request: the answer has it, the text links it.
    expect(res.body.mentions).toEqual([
      expect.objectContaining({ acct: `carol@${peer.host}`, url: peer.actor('carol') }),
    ])
    expect(res.body.content).toContain(`href="${peer.actor('carol')}"`)
    const create = await createOf(res.body.id)
    expect(create.recipient).toBe('carol') // carol's own inbox, not bob's
    const note = objectOf(create)
    expect(list(note.to)).toEqual([peer.actor('carol')])
    expect(list(note.cc)).toEqual([])
    expect(note.tag).toEqual(
      expect.objectContaining({ type: 'Mention', href: peer.actor('carol'), name: `@carol@${peer.host}` }),
    )
    // bob follows alice but is not addressed.
    await stack.drain()
    const log = await peer.log()
    expect(log.inbox.filter((a) => a.type === 'Create' && objectOf(a).id === note.id)).toHaveLength(1)
  })

  it('an unknown remote address stays text and is not a mention', async () => {
    const res = await alice.post('/api/v1/statuses', { status: `hi @nobody@${peer.host}` }).expect(200)
    expect(res.body.mentions).toEqual([])
    expect(res.body.content).toContain(`@nobody@${peer.host}`)
  })
})

describe('edits, deletions, boosts and favourites', () => {
  it('an edit sends Update(Note) with `updated`; a deletion sends Delete(Tombstone)', async () => {
    const res = await alice.post('/api/v1/statuses', { status: 'first version' }).expect(200)
    await createOf(res.body.id)
    await stack
      .api()
      .put(`/api/v1/statuses/${res.body.id}`)
      .set(bearer(alice.token))
      .send({ status: 'second version' })
      .expect(200)
    const update = await received((a) => a.type === 'Update' && objectOf(a)?.id === noteUri(res.body.id))
    expect(String(objectOf(update).content)).toContain('second version')
    expect(objectOf(update).updated).toEqual(expect.any(String))

    await alice.delete(`/api/v1/statuses/${res.body.id}`).expect(200)
    const del = await received((a) => a.type === 'Delete' && a.object === noteUri(res.body.id))
    expect(del.actor).toBe(aliceUri())
  })

  it("a favourite of bob's post is a Like to bob's inbox; unfavouriting sends its Undo", async () => {
    const id = await remoteStatus('bob', 'a post by bob')
    await alice.post(`/api/v1/statuses/${id}/favourite`).expect(200)
    const like = await received((a) => a.type === 'Like' && a.object === `${peer.actor('bob')}/notes/${id}`)
    expect(like).toMatchObject({ actor: aliceUri(), recipient: 'bob' })
    await alice.post(`/api/v1/statuses/${id}/unfavourite`).expect(200)
    const undo = await received((a) => a.type === 'Undo' && (objectOf(a) as { id?: string })?.id === like.id)
    expect(undo.actor).toBe(aliceUri())
  })

  it("a boost of carol's post is an Announce to alice's followers and to carol; unboosting sends its Undo", async () => {
    const id = await remoteStatus('carol', 'a post by carol')
    const uri = `${peer.actor('carol')}/notes/${id}`
    const boost = await alice.post(`/api/v1/statuses/${id}/reblog`).expect(200)
    // bob (a follower) and carol (the author) are on one server: its shared inbox, once.
    const announce = await received((a) => a.type === 'Announce' && a.object === uri)
    expect(announce).toMatchObject({ actor: aliceUri(), recipient: null })
    expect(list(announce.json.cc)).toEqual(expect.arrayContaining([peer.actor('carol'), followers()]))
    expect(announce.id).toBe(`${noteUri(boost.body.id)}/activity`)
    await alice.post(`/api/v1/statuses/${id}/unreblog`).expect(200)
    await received((a) => a.type === 'Undo' && (objectOf(a) as { id?: string })?.id === announce.id)
    await stack.drain()
    expect((await peer.log()).inbox.filter((a) => a.type === 'Announce')).toHaveLength(1)
  })
})

describe('the reach of edits and deletions', () => {
  it('a remote account that favourited a public post gets its Update and Delete, though it follows no one', async () => {
    const frank = await signUp(stack, { username: 'frank' }) // no remote followers
    const id = (await frank.post('/api/v1/statuses', { status: 'by frank' }).expect(200)).body.id
    // carol@peer favourited it (as the incoming half stores a Like).
    const carol = await db()('accounts')
      .where({ uri: peer.actor('carol') })
      .first()
    await db()('favourites').insert({ account_id: carol.id, status_id: id })
    const uri = `${stack.url}/users/frank/statuses/${id}`
    await stack
      .api()
      .put(`/api/v1/statuses/${id}`)
      .set(bearer(frank.token))
      .send({ status: 'by frank, edited' })
      .expect(200)
    const update = await received((a) => a.type === 'Update' && objectOf(a)?.id === uri)
    expect(update.recipient).toBe('carol')
    await frank.delete(`/api/v1/statuses/${id}`).expect(200)
    const del = await received((a) => a.type === 'Delete' && a.object === uri)
    expect(del.recipient).toBe('carol')
  })
})

describe('boosts of local posts', () => {
  it("a boost of a local post is an Announce of it to the booster's remote followers", async () => {
    const erin = await signUp(stack, { username: 'erin' })
    const id = (await erin.post('/api/v1/statuses', { status: 'by erin' }).expect(200)).body.id
    const boost = await alice.post(`/api/v1/statuses/${id}/reblog`).expect(200)
    const announce = await received(
      (a) => a.type === 'Announce' && a.object === `${stack.url}/users/erin/statuses/${id}`,
    )
    expect(announce).toMatchObject({
      actor: aliceUri(),
      recipient: 'bob',
      id: `${noteUri(boost.body.id)}/activity`,
    })
    expect(list(announce.json.to).filter(isPublic)).toHaveLength(1)
    // The outbox lists it the same way.
    const page = await fetch(`${aliceUri()}/outbox?page=true`, {
      headers: { Accept: 'application/activity+json' },
    })
    const items = ((await page.json()) as { orderedItems: { id: string; object: unknown }[] }).orderedItems
    expect(items.find((i) => i.id === announce.id)?.object).toBe(announce.object)
  })
})

describe('replies, media and polls', () => {
  it("a public reply to carol's post names it in inReplyTo and reaches carol, who does not follow alice", async () => {
    const parent = await remoteStatus('carol', 'a question by carol')
    const res = await alice
      .post('/api/v1/statuses', { status: 'an answer', in_reply_to_id: parent })
      .expect(200)
    const create = await createOf(res.body.id)
    expect(objectOf(create).inReplyTo).toBe(`${peer.actor('carol')}/notes/${parent}`)
    // bob (a follower) and carol (the parent's author) share a server: its shared inbox.
    expect(create.recipient).toBeNull()
  })

  it('an image is a Document (mediaType, description, blurhash, size); a poll is a Question', async () => {
    const media = await alice
      .post('/api/v1/media')
      .attach('file', PNG, 'pixel.png')
      .field('description', 'one pixel')
      .expect(200)
    const withImage = await alice
      .post('/api/v1/statuses', { status: 'look', media_ids: [media.body.id] })
      .expect(200)
    const document = list(objectOf(await createOf(withImage.body.id)).attachment)[0] as unknown
    expect(document).toMatchObject({
      type: 'Document',
      mediaType: 'image/png',
      name: 'one pixel',
      url: media.body.url,
      width: 1,
      height: 1,
    })
    // Fedify's vocabulary has no blurhash: Roost's own document shows it.
    const served = (await (await fetchNote(withImage.body.id)).json()) as {
      attachment: { blurhash: string }[]
    }
    expect(media.body.blurhash).toEqual(expect.any(String))
    expect(served.attachment[0]!.blurhash).toBe(media.body.blurhash)

    const poll = await alice
      .post('/api/v1/statuses', { status: 'which?', poll: { options: ['tea', 'coffee'], expires_in: 3600 } })
      .expect(200)
    const question = objectOf(await createOf(poll.body.id))
    expect(question.type).toBe('Question')
    expect(list(question.oneOf).map((o) => (o as unknown as { name: string }).name)).toEqual([
      'tea',
      'coffee',
    ])
    expect(question.endTime).toEqual(expect.any(String))
  })

  it('GET …/activity is the Create of the Note', async () => {
    const id = (await alice.post('/api/v1/statuses', { status: 'activity' }).expect(200)).body.id
    const res = await fetch(`${noteUri(id)}/activity`, { headers: { Accept: 'application/activity+json' } })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      id: `${noteUri(id)}/activity`,
      type: 'Create',
      actor: aliceUri(),
      object: { id: noteUri(id), type: 'Note' },
    })
  })
})

/** A status of a peer's user as Roost stores one from another server (incoming posts are Federation II's other half). */
async function remoteStatus(user: string, text: string): Promise<string> {
  const account = await db()('accounts')
    .where({ uri: peer.actor(user) })
    .first()
  const [conversation] = await db()('conversations').insert({}).returning('id')
  const [row] = await db()('statuses')
    .insert({
      account_id: account.id,
      conversation_id: conversation.id,
      text,
      visibility: 'public',
      sensitive: false,
      spoiler_text: '',
    })
    .returning('id')
  await db()('statuses')
    .where({ id: row.id })
    .update({ uri: `${peer.actor(user)}/notes/${row.id}`, url: `${peer.actor(user)}/notes/${row.id}` })
  return row.id as string
}

describe('GET of a Note, with content negotiation and visibility', () => {
  it('public: the Note as JSON to anyone, the page to browsers', async () => {
    const id = (await alice.post('/api/v1/statuses', { status: 'for everyone' }).expect(200)).body.id
    const res = await fetchNote(id)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/activity+json')
    expect(await res.json()).toMatchObject({ id: noteUri(id), type: 'Note' })
    const html = await fetch(noteUri(id), { headers: { Accept: 'text/html' }, redirect: 'manual' })
    expect(html.status).toBe(301)
  })

  it('private: 404 unsigned; the Note to a signed fetch from the server of a follower', async () => {
    const id = (
      await alice.post('/api/v1/statuses', { status: 'followers', visibility: 'private' }).expect(200)
    ).body.id
    expect((await fetchNote(id)).status).toBe(404)
    const bob = await signedFetch(noteUri(id), 'bob')
    expect(bob.status).toBe(200)
    expect(await bob.json()).toMatchObject({ id: noteUri(id), to: [followers()] })
    // carol does not follow alice, but bob on her server does: the server may see it (Mastodon delivered it there).
    expect((await signedFetch(noteUri(id), 'carol')).status).toBe(200)
  })

  it('direct: only to a signed fetch from the server of a mentioned account', async () => {
    const local = await stack.createUser({ username: 'dave' })
    const toDave = (
      await alice.post('/api/v1/statuses', { status: '@dave hi', visibility: 'direct' }).expect(200)
    ).body.id
    expect(local.accountId).toBeDefined()
    expect((await signedFetch(noteUri(toDave), 'bob')).status).toBe(404)
    const toCarol = (
      await alice
        .post('/api/v1/statuses', { status: `@carol@${peer.host} secret`, visibility: 'direct' })
        .expect(200)
    ).body.id
    expect((await fetchNote(toCarol)).status).toBe(404)
    expect((await signedFetch(noteUri(toCarol), 'carol')).status).toBe(200)
  })
})
