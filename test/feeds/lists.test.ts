import { startStack } from '../stack'
import type { Stack } from '../stack'
import { ids, links, post, reader, signUp, timeline } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(async () => {
  await stack.stop()
})

const home = (user: TestUser) => ids(stack, user)
const listFeed = (user: TestUser, listId: string) => ids(stack, user, `/api/v1/timelines/list/${listId}`)
const follow = (user: TestUser, target: TestUser) =>
  user.post(`/api/v1/accounts/${target.id}/follow`).expect(200)
const newList = async (user: TestUser, body: object = {}) =>
  (await user.post('/api/v1/lists', { title: 'a list', ...body }).expect(200)).body as {
    id: string
    title: string
    replies_policy: string
    exclusive: boolean
  }
const addTo = (user: TestUser, listId: string, ...members: TestUser[]) =>
  user.post(`/api/v1/lists/${listId}/accounts`, { account_ids: members.map((m) => m.id) })
const put = (user: TestUser, path: string, body: object) =>
  stack.api().put(path).set('Authorization', `Bearer ${user.token}`).send(body)
const patch = (user: TestUser, path: string, body: object) =>
  stack.api().patch(path).set('Authorization', `Bearer ${user.token}`).send(body)

describe('lists: /api/v1/lists', () => {
  it('creates, shows, lists, updates (PUT and PATCH) and deletes a list; others’ lists are 404', async () => {
    const [me, other] = [await signUp(stack), await signUp(stack)]
    const created = await newList(me, { title: 'Friends' })
    expect(created).toEqual({
      id: expect.any(String),
      title: 'Friends',
      replies_policy: 'list',
      exclusive: false,
    })
    const second = await newList(me, { title: 'Work', replies_policy: 'none', exclusive: true })
    expect(second).toMatchObject({ replies_policy: 'none', exclusive: true })

    expect((await me.get('/api/v1/lists').expect(200)).body).toEqual([created, second])
    expect((await me.get(`/api/v1/lists/${created.id}`).expect(200)).body).toEqual(created)
    expect((await put(me, `/api/v1/lists/${created.id}`, { title: 'Pals' }).expect(200)).body).toEqual({
      ...created,
      title: 'Pals',
    })
    const patched = await patch(me, `/api/v1/lists/${created.id}`, {
      replies_policy: 'followed',
      exclusive: 'true',
    }).expect(200)
    expect(patched.body).toEqual({ ...created, title: 'Pals', replies_policy: 'followed', exclusive: true })

    await other.get(`/api/v1/lists/${created.id}`).expect(404, { error: 'Record not found' })
    await put(other, `/api/v1/lists/${created.id}`, { title: 'mine now' }).expect(404)
    await other.delete(`/api/v1/lists/${created.id}`).expect(404)
    await other.get(`/api/v1/timelines/list/${created.id}`).expect(404, { error: 'Record not found' })
    await other.get(`/api/v1/lists/${created.id}/accounts`).expect(404)
    expect((await other.get('/api/v1/lists').expect(200)).body).toEqual([])
    await me.get('/api/v1/lists/nope').expect(404)

    expect((await me.delete(`/api/v1/lists/${created.id}`).expect(200)).body).toEqual({})
    await me.get(`/api/v1/lists/${created.id}`).expect(404)
    expect((await me.get('/api/v1/lists').expect(200)).body).toEqual([second])
  })

  it('answers Mastodon’s validation errors, scopes and the user requirement', async () => {
    const me = await signUp(stack)
    await me.post('/api/v1/lists', {}).expect(422, { error: "Validation failed: Title can't be blank" })
    await me
      .post('/api/v1/lists', { title: '  ' })
      .expect(422, { error: "Validation failed: Title can't be blank" })
    await me
      .post('/api/v1/lists', { title: 'x'.repeat(257) })
      .expect(422, { error: 'Validation failed: Title is too long (maximum is 256 characters)' })
    await me.post('/api/v1/lists', { title: 'x'.repeat(256) }).expect(200)
    await me
      .post('/api/v1/lists', { title: 'x', replies_policy: 'everyone' })
      .expect(422, { error: 'Validation failed: Replies policy is not included in the list' })
    const list = await newList(me)
    await put(me, `/api/v1/lists/${list.id}`, { title: '' }).expect(422, {
      error: "Validation failed: Title can't be blank",
    })
    for (let i = 2; i < 50; i++) await newList(me, { title: `list ${i}` })
    await me
      .post('/api/v1/lists', { title: 'one too many' })
      .expect(422, { error: 'Validation failed: You have reached the maximum number of lists' })

    const reading = await signUp(stack, { scope: 'read' })
    await reading.get('/api/v1/lists').expect(200)
    await reading.post('/api/v1/lists', { title: 'no' }).expect(403)
    const listsOnly = await signUp(stack, { scope: 'read:lists write:lists' })
    await listsOnly.post('/api/v1/lists', { title: 'yes' }).expect(200)
    await listsOnly.get('/api/v1/timelines/home').expect(403)
    await stack.api().get('/api/v1/lists').expect(401)
    const app = await stack.appToken('read')
    await stack.api().get('/api/v1/lists').set('Authorization', `Bearer ${app}`).expect(422)
  })
})

describe('list members: /api/v1/lists/:id/accounts', () => {
  it('adds only followed (or requested) accounts or oneself, lists them with Link headers, removes them', async () => {
    const [me, a, b, c, stranger] = [
      await signUp(stack),
      await signUp(stack),
      await signUp(stack),
      await signUp(stack),
      await signUp(stack),
    ]
    for (const target of [a, b, c]) await follow(me, target)
    const list = await newList(me)
    await addTo(me, list.id, stranger).expect(422, {
      error: 'Validation failed: Account must be a followed account',
    })
    await addTo(me, list.id, a, stranger).expect(422) // all or nothing
    expect((await me.get(`/api/v1/lists/${list.id}/accounts`).expect(200)).body).toEqual([])
    await me
      .post(`/api/v1/lists/${list.id}/accounts`, { account_ids: ['999999999'] })
      .expect(404, { error: 'Record not found' })
    expect((await addTo(me, list.id, a, b, c, me).expect(200)).body).toEqual({})
    await addTo(me, list.id, a).expect(422, { error: 'Validation failed: Account is already on the list' })
    await addTo(me, list.id).expect(200) // nothing to add

    const all = await me.get(`/api/v1/lists/${list.id}/accounts`).expect(200)
    const members = [me, a, b, c].map((u) => u.id).sort((x, y) => (BigInt(y) > BigInt(x) ? 1 : -1))
    expect(all.body.map((x: { id: string }) => x.id)).toEqual(members)
    const page = await me.get(`/api/v1/lists/${list.id}/accounts?limit=2`).expect(200)
    expect(page.body.map((x: { id: string }) => x.id)).toEqual(members.slice(0, 2))
    expect(links(page.headers.link)).toEqual({
      next: `${stack.url}/api/v1/lists/${list.id}/accounts?limit=2&max_id=${members[1]}`,
      prev: `${stack.url}/api/v1/lists/${list.id}/accounts?limit=2&since_id=${members[0]}`,
    })
    const rest = await me.get(`/api/v1/lists/${list.id}/accounts?limit=2&max_id=${members[1]}`).expect(200)
    expect(rest.body.map((x: { id: string }) => x.id)).toEqual(members.slice(2))
    const unlimited = await me.get(`/api/v1/lists/${list.id}/accounts?limit=0`).expect(200)
    expect(unlimited.body).toHaveLength(4)
    expect(unlimited.headers.link).toBeUndefined()

    const other = await newList(me, { title: 'other' })
    await addTo(me, other.id, a).expect(200)
    expect((await me.get(`/api/v1/accounts/${a.id}/lists`).expect(200)).body).toEqual([list, other])
    expect((await me.get(`/api/v1/accounts/${b.id}/lists`).expect(200)).body).toEqual([list])
    expect((await a.get(`/api/v1/accounts/${a.id}/lists`).expect(200)).body).toEqual([])
    await me.get('/api/v1/accounts/999999999/lists').expect(404)

    const removed = await me
      .delete(`/api/v1/lists/${list.id}/accounts?account_ids[]=${b.id}&account_ids[]=${stranger.id}`)
      .expect(200)
    expect(removed.body).toEqual({})
    expect((await me.get(`/api/v1/accounts/${b.id}/lists`).expect(200)).body).toEqual([])

    // Unfollowing takes the account off every list.
    await me.post(`/api/v1/accounts/${a.id}/unfollow`).expect(200)
    expect((await me.get(`/api/v1/accounts/${a.id}/lists`).expect(200)).body).toEqual([])
  })
})

describe('list timelines', () => {
  it('members’ new statuses fan out to the list, newest first, 206 while a new list feed is built', async () => {
    const [me, member, other] = [await reader(stack), await reader(stack), await reader(stack)]
    await follow(me, member)
    await follow(me, other)
    const list = await newList(me)
    await addTo(me, list.id, member).expect(200)
    await me.get(`/api/v1/timelines/list/${list.id}`).expect(206)
    await stack.drain()
    const posted: string[] = []
    for (let i = 0; i < 3; i++) posted.unshift(await post(member, `member ${i}`))
    await post(other, 'not a member')
    const direct = await post(member, { status: `@${me.username} psst`, visibility: 'direct' })
    expect(await listFeed(me, list.id)).toEqual(posted)
    expect((await home(me)).slice(0, 5)).toContain(direct)

    const res = await timeline(stack, me, `/api/v1/timelines/list/${list.id}?limit=2&local=true`)
    expect(res.body.map((s: { id: string }) => s.id)).toEqual(posted.slice(0, 2))
    expect(res.body[0]).toMatchObject({ id: posted[0], account: { id: member.id } })
    expect(links(res.headers.link)).toEqual({
      next: `${stack.url}/api/v1/timelines/list/${list.id}?limit=2&max_id=${posted[1]}`,
      prev: `${stack.url}/api/v1/timelines/list/${list.id}?limit=2&min_id=${posted[0]}`,
    })
  })

  it('adding a member merges their recent statuses; removing or unfollowing them takes them out', async () => {
    const [me, member, booster] = [await reader(stack), await reader(stack), await reader(stack)]
    await follow(me, member)
    await follow(me, booster)
    const older = await post(member, 'before joining')
    const hidden = await post(member, { status: `@${booster.username} secret`, visibility: 'direct' })
    const list = await newList(me)
    await addTo(me, list.id, member, booster).expect(200)
    const boost = (await booster.post(`/api/v1/statuses/${older}/reblog`).expect(200)).body.id as string
    expect(await listFeed(me, list.id)).toEqual([older]) // the reblog of a post in the newest 40 is held back
    expect(await listFeed(me, list.id)).not.toContain(hidden)

    await me.delete(`/api/v1/lists/${list.id}/accounts?account_ids[]=${member.id}`).expect(200)
    await stack.drain()
    // The member's own post leaves; the booster's reblog of it, held back before, is not brought back.
    expect(await listFeed(me, list.id)).toEqual([])
    expect(boost).toBeDefined()

    await addTo(me, list.id, member).expect(200)
    expect(await listFeed(me, list.id)).toEqual([older])
    await me.post(`/api/v1/accounts/${member.id}/unfollow`).expect(200)
    expect(await listFeed(me, list.id)).toEqual([])
  })

  it('a member added while the follow request is pending joins the feed once it is accepted', async () => {
    const [me, locked] = [await reader(stack), await reader(stack)]
    await stack
      .api()
      .patch('/api/v1/accounts/update_credentials')
      .set('Authorization', `Bearer ${locked.token}`)
      .send({ locked: true })
      .expect(200)
    const earlier = await post(locked, { status: 'for followers', visibility: 'private' })
    const requested = await me.post(`/api/v1/accounts/${locked.id}/follow`).expect(200)
    expect(requested.body.requested).toBe(true)
    const list = await newList(me)
    await addTo(me, list.id, locked).expect(200)
    expect((await me.get(`/api/v1/lists/${list.id}/accounts`).expect(200)).body).toHaveLength(1)
    expect(await listFeed(me, list.id)).toEqual([])
    await locked.post(`/api/v1/follow_requests/${me.id}/authorize`).expect(200)
    expect(await listFeed(me, list.id)).toEqual([earlier])
    expect((await me.get(`/api/v1/accounts/${locked.id}/lists`).expect(200)).body).toEqual([list])
  })

  it('deleted statuses, blocks and mutes clear list feeds as they clear home', async () => {
    const [me, a, b] = [await reader(stack), await reader(stack), await reader(stack)]
    await follow(me, a)
    await follow(me, b)
    const list = await newList(me)
    await addTo(me, list.id, a, b).expect(200)
    const doomed = await post(a, 'delete me')
    const kept = await post(a, 'keep me')
    const mentionsB = await post(a, `hello @${b.username}`)
    const byB = await post(b, 'by b')
    expect(await listFeed(me, list.id)).toEqual([byB, mentionsB, kept, doomed])
    await a.delete(`/api/v1/statuses/${doomed}`).expect(200)
    expect(await listFeed(me, list.id)).toEqual([byB, mentionsB, kept])
    await me.post(`/api/v1/accounts/${b.id}/mute`).expect(200)
    expect(await listFeed(me, list.id)).toEqual([kept])
  })
})

describe('exclusive lists', () => {
  it('keep their members’ statuses out of home, in the list; a non-exclusive list leaves home alone', async () => {
    const [me, quiet, loud, both] = [
      await reader(stack),
      await reader(stack),
      await reader(stack),
      await reader(stack),
    ]
    for (const target of [quiet, loud, both]) await follow(me, target)
    const exclusive = await newList(me, { title: 'only here', exclusive: true })
    const plain = await newList(me, { title: 'also home' })
    await addTo(me, exclusive.id, quiet, both).expect(200)
    await addTo(me, plain.id, loud, both).expect(200)
    await listFeed(me, exclusive.id)
    await listFeed(me, plain.id)

    const byQuiet = await post(quiet, 'in the exclusive list')
    const byLoud = await post(loud, 'in the plain list')
    const byBoth = await post(both, 'in both lists')
    const mine = await post(me, 'my own')
    expect(await home(me)).toEqual([mine, byLoud])
    expect(await listFeed(me, exclusive.id)).toEqual([byBoth, byQuiet])
    expect(await listFeed(me, plain.id)).toEqual([byBoth, byLoud])

    // Also when the home feed is rebuilt, and for what a follow merges in.
    const later = await reader(stack)
    const earlier = await post(quiet, 'posted before the follow')
    const ownList = await newList(later, { exclusive: true })
    await follow(later, quiet)
    await addTo(later, ownList.id, quiet).expect(200)
    await stack.drain()
    await stack.accountsWorker!.feeds.drop({ type: 'home', id: later.id })
    expect(await home(later)).toEqual([])
    expect(await listFeed(later, ownList.id)).toEqual([earlier, byQuiet])
  })
})

describe('edits', () => {
  it('run the home and list fan-out again: a status kept out by a muted mention arrives once the mention is edited out', async () => {
    const [me, member, muted] = [await reader(stack), await reader(stack), await reader(stack)]
    await follow(me, member)
    await me.post(`/api/v1/accounts/${muted.id}/mute`).expect(200)
    const list = await newList(me)
    await addTo(me, list.id, member).expect(200)
    expect(await listFeed(me, list.id)).toEqual([])
    const id = await post(member, `hello @${muted.username}`)
    expect(await home(me)).toEqual([])
    expect(await listFeed(me, list.id)).toEqual([])
    await put(member, `/api/v1/statuses/${id}`, { status: 'hello' }).expect(200)
    expect(await home(me)).toEqual([id])
    expect(await listFeed(me, list.id)).toEqual([id])
  })
})

describe('replies policies', () => {
  it('followed: replies to followed accounts; list: replies to members; none: no replies to others', async () => {
    const [me, member, otherMember, followedOnly, stranger] = [
      await reader(stack),
      await reader(stack),
      await reader(stack),
      await reader(stack),
      await reader(stack),
    ]
    for (const target of [member, otherMember, followedOnly]) await follow(me, target)
    const policies = ['followed', 'list', 'none'] as const
    const lists: Record<string, string> = {}
    for (const policy of policies) {
      lists[policy] = (await newList(me, { title: policy, replies_policy: policy })).id
      await addTo(me, lists[policy]!, member, otherMember).expect(200)
      await listFeed(me, lists[policy]!)
    }
    const root = (user: TestUser) => post(user, `root by ${user.username}`)
    const [ofOtherMember, ofFollowed, ofStranger, ofMine, ofMember] = [
      await root(otherMember),
      await root(followedOnly),
      await root(stranger),
      await root(me),
      await root(member),
    ]
    const reply = (to: string) => post(member, { status: 'a reply', in_reply_to_id: to })
    const toMember = await reply(ofOtherMember)
    const toFollowed = await reply(ofFollowed)
    const toStranger = await reply(ofStranger)
    const toOwner = await reply(ofMine)
    const selfReply = await reply(ofMember)

    expect(await listFeed(me, lists.followed!)).toEqual([
      selfReply,
      toOwner,
      toFollowed,
      toMember,
      ofMember,
      ofOtherMember,
    ])
    expect(await listFeed(me, lists.list!)).toEqual([selfReply, toOwner, toMember, ofMember, ofOtherMember])
    expect(await listFeed(me, lists.none!)).toEqual([selfReply, toOwner, ofMember, ofOtherMember])
    expect(toStranger).toBeDefined()

    // The same rules when the feed is rebuilt from Postgres.
    for (const policy of policies)
      await stack.accountsWorker!.feeds.drop({ type: 'list', id: lists[policy]! })
    await me.get(`/api/v1/timelines/list/${lists.list}`).expect(206)
    expect(await listFeed(me, lists.list!)).toEqual([selfReply, toOwner, toMember, ofMember, ofOtherMember])
    expect(await listFeed(me, lists.none!)).toEqual([selfReply, toOwner, ofMember, ofOtherMember])
  })
})

describe('list feeds in Redis', () => {
  it('a lost list feed is rebuilt (206, then complete); a deleted list’s feed is dropped', async () => {
    const [me, member] = [await reader(stack), await reader(stack)]
    await follow(me, member)
    const list = await newList(me)
    await addTo(me, list.id, member).expect(200)
    const expected = [await post(member, 'one'), await post(member, 'two')].reverse()
    expect(await listFeed(me, list.id)).toEqual(expected)
    const keys = stack.accountsWorker!.feeds.keys({ type: 'list', id: list.id })
    const redis = stack.accounts.ctx.redis
    await redis.del(keys.items, keys.state)
    await me.get(`/api/v1/timelines/list/${list.id}`).expect(206)
    expect(await listFeed(me, list.id)).toEqual(expected)

    await me.delete(`/api/v1/lists/${list.id}`).expect(200)
    await stack.drain()
    expect(await redis.exists(keys.items, keys.state)).toBe(0)
  })
})
