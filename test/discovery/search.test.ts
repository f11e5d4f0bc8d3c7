import { startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
let carol: TestUser
let dave: TestUser
let indexed: string
let unindexed: string
let carolPrivate: string
let carolMention: string

type Search = {
  accounts: { id: string }[]
  statuses: { id: string; filtered: unknown[] }[]
  hashtags: { name: string; url: string; history: unknown[] }[]
}
const statusIds = (body: Search) => body.statuses.map((s) => s.id)
const search = async (user: TestUser | undefined, query: string) =>
  (
    await (user ? user.get(`/api/v2/search?${query}`) : stack.api().get(`/api/v2/search?${query}`)).expect(
      200,
    )
  ).body as Search

beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
  carol = await signUp(stack, { username: 'carol' })
  dave = await signUp(stack, { username: 'dave' })
  await stack
    .api()
    .patch('/api/v1/accounts/update_credentials')
    .set('Authorization', `Bearer ${alice.token}`)
    .send({ indexable: true })
    .expect(200)
  indexed = await post(alice, { status: 'The quick brown foxes jumped', language: 'en' })
  unindexed = await post(bob, { status: 'foxes are clever', language: 'en' })
  carolPrivate = await post(carol, { status: 'secret foxes', visibility: 'private', language: 'en' })
  carolMention = await post(carol, {
    status: '@dave private foxes for you',
    visibility: 'private',
    language: 'en',
  })
})
afterAll(() => stack.stop())

describe('status search', () => {
  it('finds public statuses of indexable accounts, by stemmed words', async () => {
    expect(statusIds(await search(dave, 'q=fox&type=statuses'))).toEqual([carolMention, indexed])
    expect(statusIds(await search(dave, 'q=jumping%20fox&type=statuses'))).toEqual([indexed])
    expect(statusIds(await search(dave, 'q=elephant&type=statuses'))).toEqual([])
    // Without a user, statuses are never searched (as Mastodon's).
    expect(statusIds(await search(undefined, 'q=fox'))).toEqual([])
  })

  it('finds statuses of others only where the viewer interacted; private ones of others never', async () => {
    const viewer = await signUp(stack)
    expect(statusIds(await search(viewer, 'q=foxes&type=statuses'))).toEqual([indexed])
    await viewer.post(`/api/v1/statuses/${unindexed}/favourite`).expect(200)
    expect(statusIds(await search(viewer, 'q=foxes&type=statuses'))).toEqual([unindexed, indexed])
    await viewer.post(`/api/v1/statuses/${unindexed}/unfavourite`).expect(200)
    await viewer.post(`/api/v1/statuses/${unindexed}/bookmark`).expect(200)
    expect(statusIds(await search(viewer, 'q=clever&type=statuses'))).toEqual([unindexed])
    await viewer.post(`/api/v1/statuses/${unindexed}/unbookmark`).expect(200)
    await viewer.post(`/api/v1/statuses/${unindexed}/reblog`).expect(200)
    expect(statusIds(await search(viewer, 'q=clever&type=statuses'))).toEqual([unindexed])

    // Carol's private statuses: only carol, and dave where mentioned.
    expect(statusIds(await search(carol, 'q=foxes&type=statuses'))).toEqual([
      carolMention,
      carolPrivate,
      indexed,
    ])
    expect(statusIds(await search(dave, 'q=secret&type=statuses'))).toEqual([])
    // Even one a viewer favourited while following is gone once they no longer may read it.
    await viewer.post(`/api/v1/accounts/${carol.id}/follow`).expect(200)
    await viewer.post(`/api/v1/statuses/${carolPrivate}/favourite`).expect(200)
    expect(statusIds(await search(viewer, 'q=secret&type=statuses'))).toEqual([carolPrivate])
    await viewer.post(`/api/v1/accounts/${carol.id}/unfollow`).expect(200)
    expect(statusIds(await search(viewer, 'q=secret&type=statuses'))).toEqual([])
    // Blocked authors are left out.
    await viewer.post(`/api/v1/accounts/${alice.id}/block`).expect(200)
    expect(statusIds(await search(viewer, 'q=quick&type=statuses'))).toEqual([])
  })

  it('is language-aware: the status is stemmed in its language, the query in the viewer’s too', async () => {
    const german = await post(alice, { status: 'Die Katzen schlafen', language: 'de' })
    const user = await stack.createUser({ username: 'hans', locale: 'de' })
    const token = await stack.userToken('read write follow', user)
    const res = await stack
      .api()
      .get('/api/v2/search?q=Katze&type=statuses')
      .set('Authorization', `Bearer ${token}`)
    expect(statusIds(res.body)).toEqual([german])
    // Exact spellings match whatever the viewer's language.
    expect(statusIds(await search(dave, 'q=Katzen&type=statuses'))).toEqual([german])
  })

  it('takes account_id, max_id, min_id, limit and offset (offset only with a type)', async () => {
    const older = await post(alice, { status: 'paging needle one' })
    const newer = await post(alice, { status: 'paging needle two' })
    const mine = await post(dave, { status: 'paging needle mine' })
    expect(statusIds(await search(dave, 'q=needle&type=statuses'))).toEqual([mine, newer, older])
    expect(statusIds(await search(dave, `q=needle&type=statuses&account_id=${alice.id}`))).toEqual([
      newer,
      older,
    ])
    expect(statusIds(await search(dave, `q=needle&type=statuses&max_id=${mine}`))).toEqual([newer, older])
    expect(statusIds(await search(dave, `q=needle&type=statuses&min_id=${older}`))).toEqual([mine, newer])
    expect(statusIds(await search(dave, 'q=needle&type=statuses&limit=1&offset=1'))).toEqual([newer])
    expect(statusIds(await search(dave, 'q=needle&limit=1&offset=1'))).toEqual([mine])
    await stack
      .api()
      .get('/api/v2/search?q=needle&type=statuses&offset=1')
      .expect(401, { error: 'Search queries pagination is not supported without authentication' })
  })

  it('returns the status a URL of this server names, when the viewer may read it', async () => {
    const url = `${stack.url}/@bob/${unindexed}`
    expect(statusIds(await search(dave, `q=${encodeURIComponent(url)}`))).toEqual([unindexed])
    const uri = `${stack.url}/users/carol/statuses/${carolPrivate}`
    expect(statusIds(await search(dave, `q=${encodeURIComponent(uri)}`))).toEqual([])
    expect(statusIds(await search(carol, `q=${encodeURIComponent(uri)}`))).toEqual([carolPrivate])
  })

  it('carries filtered on found statuses', async () => {
    const viewer = await signUp(stack)
    await viewer
      .post('/api/v2/filters', {
        title: 'f',
        context: ['public'],
        keywords_attributes: [{ keyword: 'quick' }],
      })
      .expect(200)
    const found = await search(viewer, 'q=quick&type=statuses')
    expect(found.statuses[0]!.filtered).toHaveLength(1)
  })
})

describe('hashtag and account search', () => {
  it('finds hashtags by name prefix, shortest first, as Tag entities (v2) or names (v1)', async () => {
    await post(bob, 'shots #Photography and #photo and #photos')
    const found = await search(dave, 'q=%23PHOT&type=hashtags')
    expect(found.hashtags.map((t) => t.name)).toEqual(['photo', 'photos', 'Photography'])
    expect(found.hashtags[0]).toMatchObject({ url: `${stack.url}/tags/photo`, history: expect.any(Array) })
    expect(
      (await search(dave, 'q=photo&type=hashtags&limit=1&offset=1')).hashtags.map((t) => t.name),
    ).toEqual(['photos'])
    const v1 = (await dave.get('/api/v1/search?q=photog').expect(200)).body
    expect(v1.hashtags).toEqual(['Photography'])
    expect((await search(undefined, 'q=photo')).hashtags).toHaveLength(3)
  })

  it('finds accounts, only followed ones with following=true', async () => {
    const all = await search(dave, 'q=c&type=accounts')
    expect(all.accounts.map((a) => a.id)).toEqual([carol.id])
    expect((await search(dave, 'q=c&type=accounts&following=true')).accounts).toEqual([])
    await dave.post(`/api/v1/accounts/${carol.id}/follow`).expect(200)
    expect((await search(dave, 'q=c&following=true')).accounts.map((a) => a.id)).toEqual([carol.id])
    await stack.api().get('/api/v2/search').expect(400)
  })
})
