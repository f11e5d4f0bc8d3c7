import { startStack } from '../stack'
import type { Stack } from '../stack'
import { links, onStack, post, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
})
afterAll(() => stack.stop())

const ids = (statuses: { id: string }[]) => statuses.map((s) => s.id)

describe('bookmarks', () => {
  it('bookmarks and unbookmarks idempotently, and shows `bookmarked` to its owner only', async () => {
    const status = await post(bob, 'worth keeping')
    for (let i = 0; i < 2; i++) {
      const res = await alice.post(`/api/v1/statuses/${status}/bookmark`).expect(200)
      expect(res.body).toMatchObject({ id: status, bookmarked: true })
    }
    expect((await alice.get(`/api/v1/statuses/${status}`).expect(200)).body.bookmarked).toBe(true)
    expect((await bob.get(`/api/v1/statuses/${status}`).expect(200)).body.bookmarked).toBe(false)
    for (let i = 0; i < 2; i++) {
      const res = await alice.post(`/api/v1/statuses/${status}/unbookmark`).expect(200)
      expect(res.body).toMatchObject({ id: status, bookmarked: false })
    }
  })

  it('bookmarking a boost bookmarks the original', async () => {
    const original = await post(bob, 'boosted')
    const boost = (await bob.post(`/api/v1/statuses/${original}/reblog`).expect(200)).body.id
    const res = await alice.post(`/api/v1/statuses/${boost}/bookmark`).expect(200)
    expect(res.body).toMatchObject({ id: original, bookmarked: true })
  })

  it('lists bookmarks in the order they were made, paged by the bookmark', async () => {
    const carol = await signUp(stack, { username: 'carol' })
    const [older, newer, third] = [
      await post(bob, 'older'),
      await post(bob, 'newer'),
      await post(bob, 'third'),
    ]
    // Bookmarked newest status first: the list follows the bookmarks, not the statuses' ids.
    for (const id of [third, older, newer]) await carol.post(`/api/v1/statuses/${id}/bookmark`).expect(200)

    const first = await carol.get('/api/v1/bookmarks?limit=2').expect(200)
    expect(ids(first.body)).toEqual([newer, older])
    expect(first.body.every((s: { bookmarked: boolean }) => s.bookmarked)).toBe(true)
    const { next, prev } = links(first.headers.link)
    expect(next).toMatch(/limit=2&max_id=\d+/)
    expect(prev).toMatch(/limit=2&min_id=\d+/)
    const second = await carol.get(onStack(stack, next!)).expect(200)
    expect(ids(second.body)).toEqual([third])
    expect(links(second.headers.link).next).toBeUndefined()
    const back = await carol.get(onStack(stack, links(second.headers.link).prev!)).expect(200)
    expect(ids(back.body)).toEqual([newer, older])
  })

  it('unbookmarks a status its owner can no longer see; otherwise an invisible status is 404', async () => {
    const dave = await signUp(stack, { username: 'dave' })
    await dave.post(`/api/v1/accounts/${bob.id}/follow`).expect(200)
    const secret = await post(bob, { status: 'followers only', visibility: 'private' })
    await dave.post(`/api/v1/statuses/${secret}/bookmark`).expect(200)
    await dave.post(`/api/v1/accounts/${bob.id}/unfollow`).expect(200)
    expect(ids((await dave.get('/api/v1/bookmarks').expect(200)).body)).toEqual([secret])

    const res = await dave.post(`/api/v1/statuses/${secret}/unbookmark`).expect(200)
    expect(res.body).toMatchObject({ id: secret, bookmarked: false })
    expect((await dave.get('/api/v1/bookmarks').expect(200)).body).toEqual([])
    for (const action of ['bookmark', 'unbookmark']) {
      const missing = await dave.post(`/api/v1/statuses/${secret}/${action}`).expect(404)
      expect(missing.body).toEqual({ error: 'Not Found' })
    }
  })

  it('needs a user token with a bookmarks scope', async () => {
    const appToken = await stack.appToken('read write')
    const app = await stack
      .api()
      .get('/api/v1/bookmarks')
      .set('Authorization', `Bearer ${appToken}`)
      .expect(422)
    expect(app.body).toEqual({ error: 'This method requires an authenticated user' })
    const narrow = await signUp(stack, { scope: 'read:statuses' })
    await narrow.get('/api/v1/bookmarks').expect(403)
    await stack.api().get('/api/v1/bookmarks').expect(401)
    const granular = await signUp(stack, { scope: 'read:bookmarks write:bookmarks' })
    await granular.get('/api/v1/bookmarks').expect(200)
  })
})

describe('GET /api/v1/favourites', () => {
  it('lists favourites newest favourite first, with Link headers', async () => {
    const erin = await signUp(stack, { username: 'erin' })
    const [a, b] = [await post(bob, 'a'), await post(alice, 'b')]
    await erin.post(`/api/v1/statuses/${b}/favourite`).expect(200)
    await erin.post(`/api/v1/statuses/${a}/favourite`).expect(200)
    const res = await erin.get('/api/v1/favourites?limit=1').expect(200)
    expect(ids(res.body)).toEqual([a])
    expect(res.body[0].favourited).toBe(true)
    const next = await erin.get(onStack(stack, links(res.headers.link).next!)).expect(200)
    expect(ids(next.body)).toEqual([b])
    await erin.post(`/api/v1/statuses/${a}/unfavourite`).expect(200)
    expect(ids((await erin.get('/api/v1/favourites').expect(200)).body)).toEqual([b])
    const narrow = await signUp(stack, { scope: 'read:bookmarks' })
    await narrow.get('/api/v1/favourites').expect(403)
  })
})

describe('conversation mutes', () => {
  it('mutes the whole thread: no more notifications from it, `muted` on every status of it', async () => {
    const root = await post(alice, 'a thread')
    const first = await post(bob, { status: '@alice first', in_reply_to_id: root })
    await stack.drain()
    const mentions = async () =>
      (await alice.get('/api/v1/notifications?types[]=mention').expect(200)).body.map(
        (n: { status: { id: string } }) => n.status.id,
      )
    expect(await mentions()).toContain(first)

    const muted = await alice.post(`/api/v1/statuses/${first}/mute`).expect(200)
    expect(muted.body).toMatchObject({ id: first, muted: true })
    expect((await alice.get(`/api/v1/statuses/${root}`).expect(200)).body.muted).toBe(true)
    expect((await bob.get(`/api/v1/statuses/${root}`).expect(200)).body.muted).toBe(false)
    const second = await post(bob, { status: '@alice second', in_reply_to_id: first })
    await bob.post(`/api/v1/statuses/${root}/favourite`).expect(200)
    const elsewhere = await post(bob, '@alice another thread')
    await stack.drain()
    const after = await mentions()
    expect(after).not.toContain(second)
    expect(after).toContain(elsewhere)
    const favourites = (
      await alice.get(`/api/v1/notifications?types[]=favourite&account_id=${bob.id}`).expect(200)
    ).body
    expect(favourites).toEqual([])

    const unmuted = await alice.post(`/api/v1/statuses/${root}/unmute`).expect(200)
    expect(unmuted.body.muted).toBe(false)
    const third = await post(bob, { status: '@alice third', in_reply_to_id: second })
    await stack.drain()
    expect(await mentions()).toContain(third)
  })

  it('answers 404 for an invisible status and refuses tokens without write:mutes', async () => {
    const direct = await post(alice, { status: 'just me', visibility: 'direct' })
    const res = await bob.post(`/api/v1/statuses/${direct}/mute`).expect(404)
    expect(res.body).toEqual({ error: 'Not Found' })
    const narrow = await signUp(stack, { scope: 'write:bookmarks' })
    await narrow.post(`/api/v1/statuses/${direct}/mute`).expect(403)
  })
})
