import { createPrivateKey, createPublicKey, createSign, createVerify } from 'node:crypto'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { PNG, post, signUp } from '../accounts/social/helpers'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const AP = 'application/activity+json'
const LD = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'
const db = () => stack.accounts.ctx.db
const getJson = (path: string, accept = AP) => stack.api().get(path).set('Accept', accept)
const body = (res: { text: string }) => JSON.parse(res.text)

describe('key pairs', () => {
  it('are made at sign-up (RSA 2048), and on first need for accounts made without one', async () => {
    const appToken = await stack.appToken('write:accounts')
    await stack
      .api()
      .post('/api/v1/accounts')
      .set(bearer(appToken))
      .send({
        username: 'signedup',
        email: 'signedup@example.test',
        password: 'long enough password',
        agreement: true,
      })
      .expect(200)
    const row = await db()('accounts').where({ username: 'signedup' }).first()
    expect(row.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/)
    const key = createPublicKey(row.public_key)
    expect(key.asymmetricKeyType).toBe('rsa')
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048)

    // An account made straight in the database has none until its actor is first asked for.
    const plain = await stack.createUser({ username: 'lazy' })
    expect((await db()('accounts').where({ id: plain.accountId }).first()).public_key).toBeNull()
    const [a, b] = await Promise.all([getJson('/users/lazy').expect(200), getJson('/users/lazy').expect(200)])
    expect(body(a).publicKey.publicKeyPem).toBe(body(b).publicKey.publicKeyPem)
    const stored = await db()('accounts').where({ id: plain.accountId }).first()
    expect(stored.public_key).toBe(body(a).publicKey.publicKeyPem)
    // The stored private key is the one the published key verifies.
    const signed = createSign('sha256').update('hello').sign(createPrivateKey(stored.private_key))
    expect(createVerify('sha256').update('hello').verify(stored.public_key, signed)).toBe(true)
  })
})

describe('the actor (GET /users/:username)', () => {
  it('is a Person as Mastodon serves it, for activity+json, ld+json and /@username', async () => {
    const alice = await signUp(stack, { username: 'alice' })
    await stack
      .api()
      .patch('/api/v1/accounts/update_credentials')
      .set(bearer(alice.token))
      .field('display_name', 'Alice A.')
      .field('note', 'Hello\n\nworld')
      .field('locked', 'true')
      .field('fields_attributes[0][name]', 'Site')
      .field('fields_attributes[0][value]', 'https://example.com/alice')
      .attach('avatar', PNG, 'a.png')
      .expect(200)
    const res = await getJson('/users/alice').expect(200)
    expect(res.headers['content-type']).toBe('application/activity+json; charset=utf-8')
    expect(res.headers['cache-control']).toBe('max-age=180, public')
    expect(res.headers.vary).toContain('Accept')
    const actor = body(res)
    const id = `${stack.url}/users/alice`
    const host = new URL(stack.url).host
    expect(actor).toMatchObject({
      '@context': [
        'https://www.w3.org/ns/activitystreams',
        'https://w3id.org/security/v1',
        expect.any(Object),
      ],
      id,
      type: 'Person',
      following: `${id}/following`,
      followers: `${id}/followers`,
      inbox: `${id}/inbox`,
      outbox: `${id}/outbox`,
      featured: `${id}/collections/featured`,
      preferredUsername: 'alice',
      name: 'Alice A.',
      summary: '<p>Hello</p><p>world</p>',
      url: `${stack.url}/@alice`,
      manuallyApprovesFollowers: true,
      discoverable: true,
      indexable: false,
      published: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T00:00:00Z$/),
      webfinger: `alice@${host}`,
      publicKey: {
        id: `${id}#main-key`,
        owner: id,
        publicKeyPem: expect.stringMatching(/^-----BEGIN PUBLIC KEY-----/),
      },
      endpoints: { sharedInbox: `${stack.url}/inbox` },
      icon: {
        type: 'Image',
        mediaType: 'image/png',
        url: expect.stringMatching(new RegExp(`^${stack.url}/media/`)),
      },
    })
    expect(actor.attachment).toEqual([
      {
        type: 'PropertyValue',
        name: 'Site',
        value: expect.stringContaining('href="https://example.com/alice"'),
      },
    ])
    expect(actor.image).toBeUndefined()
    expect(actor['@context'][2]).toMatchObject({
      manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
      PropertyValue: 'schema:PropertyValue',
    })

    expect(body(await getJson('/users/alice', LD).expect(200)).id).toBe(id)
    expect(body(await getJson('/@alice').expect(200)).id).toBe(id)
    expect(body(await getJson('/users/ALICE').expect(200)).id).toBe(id)
  })

  it('redirects browsers to the profile page (301, Vary: Accept), and 404s unknown accounts', async () => {
    await signUp(stack, { username: 'bob' })
    const res = await stack.api().get('/users/bob').set('Accept', 'text/html').expect(301)
    expect(res.headers.location).toBe(`${stack.url}/@bob`)
    expect(res.headers.vary).toContain('Accept')
    const id = await post(await signUp(stack, { username: 'bobby' }), 'hi')
    const status = await stack.api().get(`/users/bobby/statuses/${id}`).expect(301)
    expect(status.headers.location).toBe(`${stack.url}/@bobby/${id}`)

    const missing = await getJson('/users/nobody').expect(404)
    expect(missing.body).toEqual({ error: 'Record not found' })
    await stack.createUser({ username: 'waiting', approved: false })
    await getJson('/users/waiting').expect(404)
  })

  it('shows a suspended account as suspended, key kept, profile emptied', async () => {
    const carl = await signUp(stack, { username: 'carl' })
    await db()('accounts')
      .where({ id: carl.id })
      .update({ suspended_at: new Date(), display_name: 'Carl', note: 'x' })
    const actor = body(await getJson('/users/carl').expect(200))
    expect(actor).toMatchObject({
      suspended: true,
      name: 'carl',
      summary: '',
      attachment: [],
      discoverable: false,
    })
    expect(actor.publicKey.publicKeyPem).toMatch(/BEGIN PUBLIC KEY/)
  })

  it('calls bots a Service', async () => {
    const bot = await signUp(stack, { username: 'botty' })
    await db()('accounts').where({ id: bot.id }).update({ bot: true })
    expect(body(await getJson('/users/botty').expect(200)).type).toBe('Service')
  })
})

describe('the instance actor (GET /actor)', () => {
  it('is an Application named after the domain, with a key of its own', async () => {
    const actor = body(await getJson('/actor').expect(200))
    expect(actor).toMatchObject({
      id: `${stack.url}/actor`,
      type: 'Application',
      preferredUsername: new URL(stack.url).host,
      inbox: `${stack.url}/inbox`,
      manuallyApprovesFollowers: true,
      publicKey: { id: `${stack.url}/actor#main-key`, owner: `${stack.url}/actor` },
    })
    expect(body(await getJson('/actor').expect(200)).publicKey.publicKeyPem).toBe(
      actor.publicKey.publicKeyPem,
    )
    expect(body(await getJson('/actor/outbox').expect(200))).toMatchObject({
      type: 'OrderedCollection',
      totalItems: 0,
    })
  })
})

describe('collections', () => {
  it('followers and following: a summary, pages of 12 newest first going on by next, hidden with hide_collections', async () => {
    const star = await signUp(stack, { username: 'star' })
    const fans = await Promise.all(Array.from({ length: 14 }, () => stack.createUser()))
    // Follows made in the database, in order (the API path is tested elsewhere; 14 sign-ins are slow).
    for (const fan of fans)
      await db()('follows').insert({ account_id: fan.accountId, target_account_id: star.id })
    await db()('accounts').where({ id: star.id }).update({ followers_count: 14 })
    const id = `${stack.url}/users/star/followers`
    const summary = body(await getJson('/users/star/followers').expect(200))
    expect(summary).toEqual({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id,
      type: 'OrderedCollection',
      totalItems: 14,
      first: `${id}?page=1`,
    })
    const first = body(await getJson('/users/star/followers?page=1').expect(200))
    expect(first).toMatchObject({
      id: `${id}?page=1`,
      type: 'OrderedCollectionPage',
      totalItems: 14,
      partOf: id,
    })
    expect(first.orderedItems).toEqual(
      fans
        .slice(2)
        .reverse()
        .map((f) => `${stack.url}/users/${f.username}`),
    )
    const second = body(await getJson(new URL(first.next).pathname + new URL(first.next).search).expect(200))
    expect(second.orderedItems).toEqual(
      fans
        .slice(0, 2)
        .reverse()
        .map((f) => `${stack.url}/users/${f.username}`),
    )
    expect(second.next).toBeUndefined()

    const following = body(await getJson(`/users/${fans[0]!.username}/following?page=1`).expect(200))
    expect(following.orderedItems).toEqual([`${stack.url}/users/star`])

    await db()('accounts').where({ id: star.id }).update({ hide_collections: true })
    expect(body(await getJson('/users/star/followers').expect(200))).toEqual({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id,
      type: 'OrderedCollection',
      totalItems: 14,
    })
    expect((await getJson('/users/star/following?page=1').expect(403)).body).toEqual({
      error: 'This action is not allowed',
    })
  })

  it('outbox: Create activities of public and unlisted posts and Announces of boosts, pages by max_id/min_id', async () => {
    const writer = await signUp(stack, { username: 'writer' })
    const reader = await signUp(stack, { username: 'reader' })
    const first = await post(writer, { status: 'First #hello @reader', language: 'en' })
    await post(writer, { status: 'Secret', visibility: 'private' })
    const second = await post(writer, {
      status: 'Quiet',
      visibility: 'unlisted',
      spoiler_text: 'cw',
      sensitive: true,
    })
    const boosted = await post(reader, 'Boost me')
    await writer.post(`/api/v1/statuses/${boosted}/reblog`).expect(200)

    const outbox = `${stack.url}/users/writer/outbox`
    expect(body(await getJson('/users/writer/outbox').expect(200))).toEqual({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: outbox,
      type: 'OrderedCollection',
      // Boosts and private posts count, as in Mastodon's statuses_count.
      totalItems: 4,
      first: `${outbox}?page=true`,
      last: `${outbox}?min_id=0&page=true`,
    })
    const page = body(await getJson('/users/writer/outbox?page=true').expect(200))
    expect(page.type).toBe('OrderedCollectionPage')
    expect(page.orderedItems.map((a: { type: string }) => a.type)).toEqual(['Announce', 'Create', 'Create'])
    const [announce, quiet, hello] = page.orderedItems
    expect(announce).toMatchObject({
      actor: `${stack.url}/users/writer`,
      object: `${stack.url}/users/reader/statuses/${boosted}`,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
    })
    const writerId = `${stack.url}/users/writer`
    expect(hello).toMatchObject({
      id: `${writerId}/statuses/${first}/activity`,
      type: 'Create',
      actor: writerId,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [`${writerId}/followers`, `${stack.url}/users/reader`],
      object: {
        id: `${writerId}/statuses/${first}`,
        type: 'Note',
        attributedTo: writerId,
        url: `${stack.url}/@writer/${first}`,
        summary: null,
        inReplyTo: null,
        sensitive: false,
        contentMap: { en: expect.stringContaining('First') },
        tag: [
          { type: 'Mention', href: `${stack.url}/users/reader`, name: '@reader' },
          { type: 'Hashtag', href: `${stack.url}/tags/hello`, name: '#hello' },
        ],
      },
    })
    expect(quiet.object).toMatchObject({
      id: `${writerId}/statuses/${second}`,
      summary: 'cw',
      sensitive: true,
      to: [`${writerId}/followers`],
      cc: ['https://www.w3.org/ns/activitystreams#Public'],
    })
    expect(JSON.stringify(page)).not.toContain('Secret')
    // The next page (older than the last item) is empty; the last page (from min_id=0) holds the oldest first.
    const next = body(await getJson(new URL(page.next).pathname + new URL(page.next).search).expect(200))
    expect(next.orderedItems).toEqual([])
    const last = body(await getJson('/users/writer/outbox?min_id=0&page=true').expect(200))
    expect(last.orderedItems.map((a: { id: string }) => a.id)).toEqual(
      page.orderedItems.map((a: { id: string }) => a.id),
    )
  })

  it('featured: pinned public posts as Notes; a Note by its id, private ones 404', async () => {
    const pinner = await signUp(stack, { username: 'pinner' })
    const pinned = await post(pinner, 'Pinned one')
    const secret = await post(pinner, { status: 'A secret', visibility: 'private' })
    await pinner.post(`/api/v1/statuses/${pinned}/pin`).expect(200)
    const featured = body(await getJson('/users/pinner/collections/featured').expect(200))
    expect(featured).toMatchObject({ type: 'OrderedCollection', totalItems: 1 })
    expect(featured.orderedItems[0]).toMatchObject({
      type: 'Note',
      id: `${stack.url}/users/pinner/statuses/${pinned}`,
    })

    const note = body(await getJson(`/users/pinner/statuses/${pinned}`).expect(200))
    expect(note).toMatchObject({ type: 'Note', content: '<p>Pinned one</p>' })
    expect(body(await getJson(`/@pinner/${pinned}`).expect(200)).id).toBe(note.id)
    await getJson(`/users/pinner/statuses/${secret}`).expect(404)
    await getJson('/users/pinner/statuses/123').expect(404)
  })

  it("replies: a Note lists its author's first five own replies and links on; the pages serve the rest, then others'", async () => {
    const talker = await signUp(stack, { username: 'talker' })
    const other = await signUp(stack, { username: 'other' })
    const root = await post(talker, 'A thread')
    const own: string[] = []
    for (let i = 1; i <= 7; i++) own.push(await post(talker, { status: `part ${i}`, in_reply_to_id: root }))
    const hidden = await post(talker, {
      status: 'only followers',
      in_reply_to_id: root,
      visibility: 'private',
    })
    const answer = await post(other, { status: '@talker nice', in_reply_to_id: root })
    const rootUri = `${stack.url}/users/talker/statuses/${root}`
    const uri = (id: string) => `${stack.url}/users/talker/statuses/${id}`

    const note = body(await getJson(`/users/talker/statuses/${root}`).expect(200))
    expect(note.replies).toEqual({
      id: `${rootUri}/replies`,
      type: 'Collection',
      first: {
        type: 'CollectionPage',
        next: `${rootUri}/replies?min_id=${own[4]}&page=true`,
        partOf: `${rootUri}/replies`,
        items: own.slice(0, 5).map(uri),
      },
    })
    // The collection itself is the same summary.
    expect(body(await getJson(`/users/talker/statuses/${root}/replies`).expect(200))).toMatchObject(
      note.replies,
    )

    // Its next page: the other two own replies as Notes, then on to the others' replies.
    const rest = body(
      await getJson(`/users/talker/statuses/${root}/replies?min_id=${own[4]}&page=true`).expect(200),
    )
    expect(rest).toMatchObject({
      type: 'CollectionPage',
      partOf: `${rootUri}/replies`,
      next: `${rootUri}/replies?only_other_accounts=true&page=true`,
    })
    expect(rest.items.map((n: { id: string; type: string }) => [n.type, n.id])).toEqual(
      own.slice(5).map((id) => ['Note', uri(id)]),
    )
    const others = body(
      await getJson(`/users/talker/statuses/${root}/replies?only_other_accounts=true&page=true`).expect(200),
    )
    expect(others.items).toEqual([`${stack.url}/users/other/statuses/${answer}`])
    expect(others.next).toBeUndefined()
    expect(JSON.stringify([note, rest, others])).not.toContain(hidden)

    // A post with no reply of its author's links straight to the others'.
    const lone = await post(other, 'Alone')
    expect(body(await getJson(`/users/other/statuses/${lone}`).expect(200)).replies.first).toMatchObject({
      items: [],
      next: `${stack.url}/users/other/statuses/${lone}/replies?only_other_accounts=true&page=true`,
    })
    // The replies of a post nobody may see: 404.
    await getJson(`/users/talker/statuses/${hidden}/replies`).expect(404)
  })
})
