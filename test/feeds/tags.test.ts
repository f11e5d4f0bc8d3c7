import { startStack } from '../stack'
import type { Stack } from '../stack'
import { ids, links, post, reader, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(async () => {
  await stack.stop()
})

const today = () => String(Math.floor(Date.now() / 86_400_000) * 86_400)

describe('hashtags in statuses', () => {
  it('are extracted as Mastodon does, normalised, one tag per name, kept through edits', async () => {
    const me = await signUp(stack)
    const res = await me
      .post('/api/v1/statuses', { status: '#Roost and #roost, #BLÅHAJ #123 (#paren) #Café' })
      .expect(200)
    expect(res.body.tags).toEqual([
      { name: 'blahaj', url: `${stack.url}/tags/blahaj` },
      { name: 'cafe', url: `${stack.url}/tags/cafe` },
      { name: 'roost', url: `${stack.url}/tags/roost` },
    ])
    expect(res.body.content).toContain(
      `<a href="${stack.url}/tags/blahaj" class="mention hashtag" rel="tag">#<span>BLÅHAJ</span></a>`,
    )
    expect(res.body.content).toContain('(#paren)')
    const edited = await stack
      .api()
      .put(`/api/v1/statuses/${res.body.id}`)
      .set('Authorization', `Bearer ${me.token}`)
      .send({ status: 'now only #ROOST' })
      .expect(200)
    expect(edited.body.tags).toEqual([{ name: 'roost', url: `${stack.url}/tags/roost` }])
    const tagged = await me.get(`/api/v1/accounts/${me.id}/statuses?tagged=Roost`).expect(200)
    expect(tagged.body.map((s: { id: string }) => s.id)).toEqual([res.body.id])
    const folded = await me.get(`/api/v1/accounts/${me.id}/statuses?tagged=blåhaj`).expect(200)
    expect(folded.body).toEqual([])
  })
})

describe('GET /api/v1/tags/:name', () => {
  it('answers the Tag entity: first spelling, history of 7 days, following and featuring for a user', async () => {
    const [me, other] = [await signUp(stack), await signUp(stack)]
    await post(me, 'hello #Gardening')
    await post(other, 'me too #gardening')
    await post(other, 'again #GARDENING')
    await post(other, { status: 'not counted #gardening', visibility: 'unlisted' })

    const res = await me.get('/api/v1/tags/gArDeNiNg').expect(200)
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'Gardening',
      url: `${stack.url}/tags/gardening`,
      history: expect.any(Array),
      following: false,
      featuring: false,
    })
    expect(res.body.history).toHaveLength(7)
    expect(res.body.history[0]).toEqual({ day: today(), uses: '3', accounts: '2' })
    expect(res.body.history[1]).toEqual({ day: String(Number(today()) - 86_400), uses: '0', accounts: '0' })

    const anonymous = await stack.api().get('/api/v1/tags/gardening').expect(200)
    expect(anonymous.body).not.toHaveProperty('following')
    expect(anonymous.body).not.toHaveProperty('featuring')
    expect(anonymous.body.id).toBe(res.body.id)
  })

  it('an unused tag is 200 with an empty id; a name that is not a hashtag is 404', async () => {
    const me = await signUp(stack)
    const unknown = await me.get(`/api/v1/tags/${encodeURIComponent('NeverUsed')}`).expect(200)
    expect(unknown.body).toMatchObject({
      id: '',
      name: 'NeverUsed',
      url: `${stack.url}/tags/neverused`,
      following: false,
    })
    expect(unknown.body.history.every((d: { uses: string }) => d.uses === '0')).toBe(true)
    await me.get('/api/v1/tags/123').expect(404, { error: 'Not Found' })
    await me.get('/api/v1/tags/foo-bar').expect(404, { error: 'Not Found' })
    const japanese = await me.get(`/api/v1/tags/${encodeURIComponent('日本語')}`).expect(200)
    expect(japanese.body.url).toBe(`${stack.url}/tags/${encodeURIComponent('日本語')}`)
  })
})

const statusIds = (res: { body: { id: string }[] }) => res.body.map((s) => s.id)

describe('GET /api/v1/timelines/tag/:hashtag', () => {
  it('public statuses with the tag, any[], all[], none[], only_media, local/remote, Link; unknown tag is []', async () => {
    const [author, blocked, viewer] = [await signUp(stack), await signUp(stack), await signUp(stack)]
    const cats = await post(author, 'one #Cats')
    const catsDogs = await post(author, 'two #cats #dogs')
    const dogs = await post(author, 'three #dogs')
    const reply = await post(author, { status: 'a reply #cats', in_reply_to_id: dogs })
    await post(author, { status: 'unlisted #cats', visibility: 'unlisted' })
    await post(author, { status: 'private #cats', visibility: 'private' })
    const byBlocked = await post(blocked, 'blocked #cats')
    await viewer.post(`/api/v1/accounts/${blocked.id}/block`).expect(200)

    const api = stack.api()
    expect(statusIds(await api.get('/api/v1/timelines/tag/CATS').expect(200))).toEqual([
      byBlocked,
      reply,
      catsDogs,
      cats,
    ])
    expect(statusIds(await viewer.get('/api/v1/timelines/tag/cats').expect(200))).toEqual([
      reply,
      catsDogs,
      cats,
    ])
    expect(statusIds(await viewer.get('/api/v1/timelines/tag/cats?any[]=dogs').expect(200))).toEqual([
      reply,
      dogs,
      catsDogs,
      cats,
    ])
    expect(statusIds(await viewer.get('/api/v1/timelines/tag/cats?all[]=Dogs').expect(200))).toEqual([
      catsDogs,
    ])
    expect(statusIds(await viewer.get('/api/v1/timelines/tag/cats?none[]=dogs').expect(200))).toEqual([
      reply,
      cats,
    ])
    expect(
      statusIds(await viewer.get('/api/v1/timelines/tag/cats?all[]=neverused').expect(200)),
    ).toHaveLength(3)
    expect((await viewer.get('/api/v1/timelines/tag/cats?only_media=true').expect(200)).body).toEqual([])
    expect((await viewer.get('/api/v1/timelines/tag/cats?remote=true').expect(200)).body).toEqual([])
    expect(statusIds(await viewer.get('/api/v1/timelines/tag/cats?local=true').expect(200))).toHaveLength(3)
    const unknown = await viewer.get('/api/v1/timelines/tag/neverused?any[]=cats').expect(200)
    expect(unknown.body).toEqual([])
    expect(unknown.headers.link).toBeUndefined()

    const page = await api.get('/api/v1/timelines/tag/cats?limit=2&local=true&any[]=dogs').expect(200)
    expect(statusIds(page)).toEqual([byBlocked, reply])
    expect(links(page.headers.link)).toEqual({
      next: `${stack.url}/api/v1/timelines/tag/cats?limit=2&local=true&max_id=${reply}`,
      prev: `${stack.url}/api/v1/timelines/tag/cats?limit=2&local=true&min_id=${byBlocked}`,
    })
  })
})

describe('followed tags', () => {
  const follow = (user: TestUser, name: string) => user.post(`/api/v1/tags/${name}/follow`).expect(200)

  it('follow, unfollow and GET /api/v1/followed_tags with Link headers', async () => {
    const me = await signUp(stack)
    const followed = await follow(me, 'BrandNew')
    expect(followed.body).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      name: 'BrandNew',
      following: true,
    })
    expect((await follow(me, 'brandnew')).body).toMatchObject({ id: followed.body.id, following: true })
    for (const name of ['alpha', 'beta', 'gamma']) await follow(me, name)
    const all = await me.get('/api/v1/followed_tags').expect(200)
    expect(all.body.map((t: { name: string }) => t.name)).toEqual(['gamma', 'beta', 'alpha', 'BrandNew'])
    expect(all.body[0]).toMatchObject({ following: true, history: expect.any(Array) })
    const page = await me.get('/api/v1/followed_tags?limit=2').expect(200)
    expect(page.body.map((t: { name: string }) => t.name)).toEqual(['gamma', 'beta'])
    const { next, prev } = links(page.headers.link)
    expect(prev).toMatch(/since_id=\d+/)
    const rest = await me.get(next!.slice(stack.url.length)).expect(200)
    expect(rest.body.map((t: { name: string }) => t.name)).toEqual(['alpha', 'BrandNew'])

    const unfollowed = await me.post('/api/v1/tags/beta/unfollow').expect(200)
    expect(unfollowed.body).toMatchObject({ name: 'beta', following: false })
    expect((await me.post('/api/v1/tags/neverseen/unfollow').expect(200)).body).toMatchObject({ id: '' })
    expect((await me.get('/api/v1/followed_tags').expect(200)).body).toHaveLength(3)
    await me.post('/api/v1/tags/12/follow').expect(404)
    const reading = await signUp(stack, { scope: 'read' })
    await reading.post('/api/v1/tags/alpha/follow').expect(403)
    await stack.api().get('/api/v1/followed_tags').expect(401)
  })

  it('a public status with a followed tag reaches home; unfollowing takes it out unless there for another reason', async () => {
    const [me, friend, stranger, muted] = [
      await reader(stack),
      await reader(stack),
      await reader(stack),
      await reader(stack),
    ]
    await me.post(`/api/v1/accounts/${friend.id}/follow`).expect(200)
    await me.post(`/api/v1/accounts/${muted.id}/mute`).expect(200)
    await follow(me, 'Knitting')
    await follow(me, 'crochet')
    const fromStranger = await post(stranger, 'my scarf #knitting')
    const both = await post(stranger, 'hooks and needles #knitting #crochet')
    const fromFriend = await post(friend, 'friend knits #knitting')
    await post(stranger, { status: 'quiet #knitting', visibility: 'unlisted' })
    await post(muted, 'muted #knitting')
    const mine = await post(me, 'my own #knitting')
    expect(await ids(stack, me)).toEqual([mine, fromFriend, both, fromStranger])

    await me.post('/api/v1/tags/knitting/unfollow').expect(200)
    expect(await ids(stack, me)).toEqual([mine, fromFriend, both])
  })

  it('an edit that adds a followed hashtag runs the tag fan-out again: the status reaches the tag’s followers', async () => {
    const [me, stranger, follower] = [await reader(stack), await reader(stack), await reader(stack)]
    await follower.post(`/api/v1/accounts/${stranger.id}/follow`).expect(200)
    await follow(me, 'Pottery')
    const id = await post(stranger, 'a bowl')
    const other = await post(stranger, 'a vase #pottery')
    expect(await ids(stack, me)).toEqual([other])
    expect(await ids(stack, follower)).toEqual([other, id])
    const edit = (status: string) =>
      stack
        .api()
        .put(`/api/v1/statuses/${id}`)
        .set('Authorization', `Bearer ${stranger.token}`)
        .send({ status })
        .expect(200)
    await edit('a bowl #Pottery')
    // In its place by id, not on top; the author's followers keep their one copy.
    expect(await ids(stack, me)).toEqual([other, id])
    expect(await ids(stack, follower)).toEqual([other, id])
    // Edited again, with the tag still there: nothing moves, nothing doubles.
    await edit('a round bowl #pottery')
    expect(await ids(stack, me)).toEqual([other, id])
  })
})
