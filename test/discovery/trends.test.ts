import { startStack } from '../stack'
import type { Stack } from '../stack'
import { links, onStack, post, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
let carol: TestUser
let dave: TestUser

const discoverable = (user: TestUser, value = true) =>
  stack
    .api()
    .patch('/api/v1/accounts/update_credentials')
    .set('Authorization', `Bearer ${user.token}`)
    .send({ discoverable: value })
    .expect(200)
const ids = (body: { id: string }[]) => body.map((x) => x.id)

beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
  carol = await signUp(stack, { username: 'carol' })
  dave = await signUp(stack, { username: 'dave' })
  for (const user of [alice, bob, carol]) await discoverable(user)
  await discoverable(dave, false)
})
afterAll(() => stack.stop())

describe('trends', () => {
  it('ranks tags by distinct authors, then uses, with offset paging', async () => {
    await post(alice, '#cats are great')
    await post(bob, 'more #cats')
    await post(bob, '#dogs #dogs #dogs')
    await post(bob, '#dogs again')
    await post(carol, { status: '#secret', visibility: 'private' })
    const tags = (await stack.api().get('/api/v1/trends/tags').expect(200)).body
    expect(tags.map((t: { name: string }) => t.name)).toEqual(['cats', 'dogs'])
    expect(tags[0]).toMatchObject({ url: `${stack.url}/tags/cats`, history: expect.any(Array) })
    expect((await stack.api().get('/api/v1/trends').expect(200)).body).toEqual(tags)
    const first = await stack.api().get('/api/v1/trends/tags?limit=1').expect(200)
    expect(first.body.map((t: { name: string }) => t.name)).toEqual(['cats'])
    const next = links(first.headers.link).next!
    expect(next).toContain('offset=1')
    expect((await stack.api().get(onStack(stack, next)).expect(200)).body[0].name).toBe('dogs')
  })

  it('ranks public statuses of discoverable accounts by boosts and favourites', async () => {
    const popular = await post(alice, 'popular')
    const liked = await post(bob, 'liked once')
    const hidden = await post(dave, 'not discoverable')
    await post(carol, 'ignored')
    for (const user of [bob, carol, dave])
      await user.post(`/api/v1/statuses/${popular}/favourite`).expect(200)
    await carol.post(`/api/v1/statuses/${popular}/reblog`).expect(200)
    await alice.post(`/api/v1/statuses/${liked}/favourite`).expect(200)
    await alice.post(`/api/v1/statuses/${hidden}/favourite`).expect(200)
    expect(ids((await stack.api().get('/api/v1/trends/statuses').expect(200)).body)).toEqual([popular, liked])
    // A viewer who blocks alice does not see hers.
    await dave.post(`/api/v1/accounts/${alice.id}/block`).expect(200)
    expect(ids((await dave.get('/api/v1/trends/statuses').expect(200)).body)).toEqual([liked])
    await dave.post(`/api/v1/accounts/${alice.id}/unblock`).expect(200)
    expect((await stack.api().get('/api/v1/trends/links').expect(200)).body).toEqual([])
  })
})

describe('suggestions', () => {
  it('suggests friends of friends, then popular accounts; DELETE dismisses', async () => {
    const me = await signUp(stack)
    await me.post(`/api/v1/accounts/${alice.id}/follow`).expect(200)
    await alice.post(`/api/v1/accounts/${bob.id}/follow`).expect(200)
    await dave.post(`/api/v1/accounts/${carol.id}/follow`).expect(200)
    const res = (await me.get('/api/v2/suggestions').expect(200)).body
    expect(res.map((s: { account: { id: string } }) => s.account.id)).toEqual([bob.id, carol.id])
    expect(res[0]).toMatchObject({ source: 'past_interactions', sources: ['friends_of_friends'] })
    expect(res[1]).toMatchObject({ source: 'global', sources: ['most_followed'] })
    expect(ids((await me.get('/api/v1/suggestions').expect(200)).body)).toEqual([bob.id, carol.id])
    await me.delete(`/api/v1/suggestions/${bob.id}`).expect(200, {})
    expect(ids((await me.get('/api/v1/suggestions').expect(200)).body)).toEqual([carol.id])
    await me.delete('/api/v1/suggestions/999999').expect(404)
    await stack.api().get('/api/v2/suggestions').expect(401)
  })
})

describe('directory', () => {
  it('lists discoverable accounts, by activity or newest, with offset', async () => {
    // Accounts are discoverable by default: other tests' users are left aside.
    const known = new Set([alice.id, bob.id, carol.id, dave.id])
    const ids = (body: { id: string }[]) => body.map((x) => x.id).filter((id) => known.has(id))
    const active = ids((await stack.api().get('/api/v1/directory?local=true').expect(200)).body)
    expect(active.sort()).toEqual([alice.id, bob.id, carol.id].sort())
    expect(active).not.toContain(dave.id)
    expect(ids((await stack.api().get('/api/v1/directory?order=new').expect(200)).body)).toEqual([
      carol.id,
      bob.id,
      alice.id,
    ])
    const all = (await stack.api().get('/api/v1/directory?order=new').expect(200)).body as { id: string }[]
    const paged = await stack.api().get('/api/v1/directory?order=new&offset=1&limit=1').expect(200)
    expect(paged.body.map((a: { id: string }) => a.id)).toEqual([all[1]!.id])
    await bob.post(`/api/v1/accounts/${carol.id}/mute`).expect(200)
    expect(ids((await bob.get('/api/v1/directory?order=new').expect(200)).body)).toEqual([bob.id, alice.id])
  })
})

describe('featured tags', () => {
  it('features tags with counts, lists, suggests and unfeatures them; at most 10', async () => {
    await post(dave, '#travel day one')
    await post(dave, '#travel day two #food')
    const created = (await dave.post('/api/v1/featured_tags', { name: 'travel' }).expect(200)).body
    expect(created).toEqual({
      id: expect.any(String),
      name: 'travel',
      url: `${stack.url}/@dave/tagged/travel`,
      statuses_count: '2',
      last_status_at: new Date().toISOString().slice(0, 10),
    })
    await dave
      .post('/api/v1/featured_tags', { name: 'travel' })
      .expect(422, { error: 'Validation failed: Tag has already been taken' })
    await dave.post('/api/v1/featured_tags', {}).expect(400)
    await dave.post('/api/v1/featured_tags', { name: 'not a tag!' }).expect(422)
    expect((await dave.get('/api/v1/featured_tags').expect(200)).body).toEqual([created])
    expect((await stack.api().get(`/api/v1/accounts/${dave.id}/featured_tags`).expect(200)).body).toEqual([
      created,
    ])
    const suggested = (await dave.get('/api/v1/featured_tags/suggestions').expect(200)).body
    expect(suggested.map((t: { name: string }) => t.name)).toEqual(['food'])
    expect((await dave.get('/api/v1/tags/travel').expect(200)).body.featuring).toBe(true)

    const tag = (await dave.post('/api/v1/tags/food/feature').expect(200)).body
    expect(tag).toMatchObject({ name: 'food', featuring: true })
    expect((await dave.post('/api/v1/tags/food/unfeature').expect(200)).body.featuring).toBe(false)

    for (let i = 0; i < 9; i++) await dave.post('/api/v1/featured_tags', { name: `tag${i}` }).expect(200)
    await dave
      .post('/api/v1/featured_tags', { name: 'onetoomany' })
      .expect(422, { error: 'Validation failed: You have already featured the maximum number of hashtags' })
    await alice.delete(`/api/v1/featured_tags/${created.id}`).expect(404)
    await dave.delete(`/api/v1/featured_tags/${created.id}`).expect(200, {})
    expect(
      (await dave.get('/api/v1/featured_tags').expect(200)).body.map((t: { name: string }) => t.name),
    ).not.toContain('travel')
  })
})
