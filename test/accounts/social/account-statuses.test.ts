import { startStack } from '../../stack'
import type { Stack } from '../../stack'
import { links, onStack, PNG, post, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
let bob: TestUser
beforeAll(async () => {
  stack = await startStack()
  bob = await signUp(stack)
})
afterAll(() => stack.stop())

const ids = (body: { id: string }[]) => body.map((s) => s.id)

describe('GET /api/v1/accounts/:id/statuses (docs/mastodon-compatibility.md, "Accounts")', () => {
  it('limit=1 on your own account gives Link prev min_id and next max_id, absolute and sorted', async () => {
    const user = await signUp(stack)
    const id = await post(user, 'only one')
    const res = await user.get(`/api/v1/accounts/${user.id}/statuses?limit=1`).expect(200)
    expect(ids(res.body)).toEqual([id])
    const base = `${stack.url}/api/v1/accounts/${user.id}/statuses`
    expect(res.headers.link).toBe(
      `<${base}?limit=1&max_id=${id}>; rel="next", <${base}?limit=1&min_id=${id}>; rel="prev"`,
    )
  })

  it('only_media lists statuses that still have media; the /statuses/media route is the same', async () => {
    const user = await signUp(stack)
    const upload = async () =>
      (await user.post('/api/v2/media').attach('file', PNG, 'p.png').expect(200)).body.id
    const first = await post(user, { status: 'one', media_ids: [await upload()] })
    await post(user, 'text only')
    const second = await post(user, { status: 'two', media_ids: [await upload(), await upload()] })
    const gone = await post(user, { status: 'three', media_ids: [await upload()] })
    // Media taken off a status (what an edit does) leaves the media listing.
    await stack.accounts.ctx.db('media_attachments').where({ status_id: gone }).update({ status_id: null })

    const res = await user.get(`/api/v1/accounts/${user.id}/statuses?only_media=true`).expect(200)
    expect(ids(res.body)).toEqual([second, first])
    const media = await stack.api().get(`/api/v1/accounts/${user.id}/statuses/media?limit=1`).expect(200)
    expect(ids(media.body)).toEqual([second])
    const l = links(media.headers.link)
    expect(l.next).toBe(`${stack.url}/api/v1/accounts/${user.id}/statuses/media?limit=1&max_id=${second}`)
    const next = await stack.api().get(onStack(stack, l.next!)).expect(200)
    expect(ids(next.body)).toEqual([first])
  })

  it('exclude_replies keeps self-replies; exclude_reblogs drops boosts', async () => {
    const user = await signUp(stack)
    const own = await post(user, 'own post')
    const selfReply = await post(user, { status: 'thread', in_reply_to_id: own })
    const other = await post(bob, 'elsewhere')
    await post(user, { status: 'reply to bob', in_reply_to_id: other })
    const boost = (await user.post(`/api/v1/statuses/${other}/reblog`).expect(200)).body.id
    const res = await user.get(`/api/v1/accounts/${user.id}/statuses?exclude_replies=true`).expect(200)
    expect(ids(res.body)).toEqual([boost, selfReply, own])
    const noBoosts = await user.get(
      `/api/v1/accounts/${user.id}/statuses?exclude_replies=1&exclude_reblogs=1`,
    )
    expect(ids(noBoosts.body)).toEqual([selfReply, own])
    expect(links(noBoosts.headers.link).prev).toBe(
      `${stack.url}/api/v1/accounts/${user.id}/statuses?exclude_reblogs=1&exclude_replies=1&min_id=${selfReply}`,
    )
  })

  it('pinned=true lists pins with min_id/max_id links keeping pinned=true', async () => {
    const user = await signUp(stack)
    const a = await post(user, 'a')
    await post(user, 'not pinned')
    const b = await post(user, 'b')
    await user.post(`/api/v1/statuses/${a}/pin`).expect(200)
    const one = await user.get(`/api/v1/accounts/${user.id}/statuses?pinned=true&limit=5`).expect(200)
    expect(ids(one.body)).toEqual([a])
    await user.post(`/api/v1/statuses/${b}/pin`).expect(200)
    const res = await user.get(`/api/v1/accounts/${user.id}/statuses?pinned=true&limit=1`).expect(200)
    expect(ids(res.body)).toEqual([b])
    const base = `${stack.url}/api/v1/accounts/${user.id}/statuses`
    expect(links(res.headers.link)).toEqual({
      next: `${base}?limit=1&max_id=${b}&pinned=true`,
      prev: `${base}?limit=1&min_id=${b}&pinned=true`,
    })
  })

  it("someone else's pins: the private one only when following", async () => {
    const author = await signUp(stack)
    const viewer = await signUp(stack)
    const pub = await post(author, 'public pin')
    const priv = await post(author, { status: 'private pin', visibility: 'private' })
    await author.post(`/api/v1/statuses/${pub}/pin`).expect(200)
    // Roost pins public and unlisted posts only; a private pin (which Mastodon allows) is written directly.
    await stack.accounts.ctx.db('status_pins').insert({ account_id: author.id, status_id: priv })
    const path = `/api/v1/accounts/${author.id}/statuses?pinned=true`
    expect(ids((await viewer.get(path).expect(200)).body)).toEqual([pub])
    await viewer.post(`/api/v1/accounts/${author.id}/follow`).expect(200)
    expect(ids((await viewer.get(path).expect(200)).body)).toEqual([priv, pub])
  })

  it('applies visibility, tagged, blocks and suspension', async () => {
    const author = await signUp(stack)
    const viewer = await signUp(stack)
    const pub = await post(author, 'hello #Cats')
    const unlisted = await post(author, { status: 'quiet', visibility: 'unlisted' })
    const priv = await post(author, { status: 'friends', visibility: 'private' })
    const dm = await post(author, { status: `@${viewer.username} hi`, visibility: 'direct' })
    const other = await post(author, { status: 'dm elsewhere', visibility: 'direct' })
    const path = `/api/v1/accounts/${author.id}/statuses`
    expect(ids((await stack.api().get(path).expect(200)).body)).toEqual([unlisted, pub])
    expect(ids((await viewer.get(path).expect(200)).body)).toEqual([dm, unlisted, pub])
    expect(ids((await author.get(path).expect(200)).body)).toEqual([other, dm, priv, unlisted, pub])
    expect(ids((await author.get(`${path}?exclude_direct=true`).expect(200)).body)).toEqual([
      priv,
      unlisted,
      pub,
    ])
    expect(ids((await viewer.get(`${path}?tagged=cats`).expect(200)).body)).toEqual([pub])
    expect((await viewer.get(`${path}?tagged=dogs`).expect(200)).body).toEqual([])

    await author.post(`/api/v1/accounts/${viewer.id}/block`).expect(200)
    expect((await viewer.get(path).expect(200)).body).toEqual([])
    await stack.accounts.ctx.db('accounts').where({ id: author.id }).update({ suspended_at: new Date() })
    const suspended = await stack.api().get(path).expect(200)
    expect(suspended.body).toEqual([])
    expect(suspended.headers.link).toBeUndefined()
  })

  it('filters boosts of accounts the viewer blocks or mutes', async () => {
    const booster = await signUp(stack)
    const viewer = await signUp(stack)
    const muted = await signUp(stack)
    const original = await post(muted, 'boost this')
    const boost = (await booster.post(`/api/v1/statuses/${original}/reblog`).expect(200)).body.id
    const path = `/api/v1/accounts/${booster.id}/statuses`
    expect(ids((await viewer.get(path).expect(200)).body)).toEqual([boost])
    await viewer.post(`/api/v1/accounts/${muted.id}/mute`).expect(200)
    expect((await viewer.get(path).expect(200)).body).toEqual([])
  })

  it('unknown account → 404 Record not found', async () => {
    const res = await stack.api().get('/api/v1/accounts/999999/statuses').expect(404)
    expect(res.body).toEqual({ error: 'Record not found' })
    await stack.api().get('/api/v1/accounts/abc/statuses').expect(404)
  })

  it('walks 250 statuses by Link next without gaps or repeats, and back by prev; caps limit at 40', async () => {
    const user = await signUp(stack)
    const db = stack.accounts.ctx.db
    // The listing is under test, not posting: insert the statuses directly.
    const created: string[] = (
      await db('statuses')
        .insert(
          Array.from({ length: 250 }, (_, i) => ({
            account_id: user.id,
            text: `s${i}`,
            visibility: 'public',
          })),
        )
        .returning('id')
    ).map((r: { id: string }) => r.id)
    const expected = [...created].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1))

    const seen: string[] = []
    let path: string | undefined = `/api/v1/accounts/${user.id}/statuses`
    let pages = 0
    let last = ''
    while (path) {
      const res: { body: { id: string }[]; headers: Record<string, string> } = await stack
        .api()
        .get(path)
        .expect(200)
      seen.push(...ids(res.body))
      pages++
      last = path
      const next: string | undefined = links(res.headers.link).next
      path = next ? onStack(stack, next) : undefined
    }
    expect(seen).toEqual(expected)
    expect(pages).toBe(13) // 12 full pages of 20, then one of 10 without a next link
    expect(last).toContain('max_id=')

    const back: string[] = []
    let prev: string | undefined = `/api/v1/accounts/${user.id}/statuses?limit=40&max_id=${expected[199]}`
    const first = await stack.api().get(prev).expect(200)
    back.push(...ids(first.body))
    prev = links(first.headers.link).prev
    while (prev) {
      const res = await stack.api().get(onStack(stack, prev)).expect(200)
      back.unshift(...ids(res.body))
      prev = res.body.length ? links(res.headers.link).prev : undefined
    }
    expect(back).toEqual(expected.slice(0, 240))

    const capped = await stack.api().get(`/api/v1/accounts/${user.id}/statuses?limit=1000`).expect(200)
    expect(capped.body).toHaveLength(40)
  })
})
