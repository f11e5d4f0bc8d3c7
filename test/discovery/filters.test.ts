import { startStack } from '../stack'
import type { Stack } from '../stack'
import { links, onStack, post, signUp } from './helpers'
import type { TestUser } from './helpers'
import { ids, reader, timeline } from '../feeds/helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
})
afterAll(() => stack.stop())

type Filtered = {
  filter: { id: string; title: string; context: string[]; filter_action: string; keywords?: unknown }
  keyword_matches: string[] | null
  status_matches: string[] | null
}
type Status = { id: string; filtered: Filtered[]; reblog: Status | null }

const createFilter = async (user: TestUser, body: object) =>
  (await user.post('/api/v2/filters', body).expect(200)).body as {
    id: string
    keywords: { id: string; keyword: string; whole_word: boolean }[]
    statuses: { id: string; status_id: string }[]
  }

describe('filters v2', () => {
  it('creates, shows, lists, updates and deletes a filter with keywords; another user’s is 404', async () => {
    const user = await signUp(stack)
    const created = await createFilter(user, {
      title: 'Spoilers',
      context: ['home', 'public', ''],
      filter_action: 'warn',
      expires_in: 3600,
      keywords_attributes: [{ keyword: 'finale', whole_word: true }, { keyword: 'season 2' }],
    })
    expect(created).toMatchObject({
      title: 'Spoilers',
      context: ['home', 'public'],
      filter_action: 'warn',
      keywords: [
        { keyword: 'finale', whole_word: true },
        { keyword: 'season 2', whole_word: true },
      ],
      statuses: [],
    })
    const expiresAt = Date.parse((created as unknown as { expires_at: string }).expires_at)
    expect(Math.abs(expiresAt - (Date.now() + 3600_000))).toBeLessThan(60_000)

    expect((await user.get(`/api/v2/filters/${created.id}`).expect(200)).body).toEqual(created)
    expect((await user.get('/api/v2/filters').expect(200)).body).toEqual([created])
    await bob.get(`/api/v2/filters/${created.id}`).expect(404, { error: 'Record not found' })
    await bob.delete(`/api/v2/filters/${created.id}`).expect(404)

    const [finale, season] = created.keywords
    const updated = await stack
      .api()
      .put(`/api/v2/filters/${created.id}`)
      .set('Authorization', `Bearer ${user.token}`)
      .send({
        title: 'TV',
        filter_action: 'hide',
        expires_in: '',
        keywords_attributes: [
          { id: finale!.id, whole_word: false },
          { id: season!.id, _destroy: true },
          { keyword: 'episode' },
        ],
      })
      .expect(200)
    expect(updated.body).toMatchObject({
      title: 'TV',
      context: ['home', 'public'],
      filter_action: 'hide',
      expires_at: null,
      keywords: [
        { id: finale!.id, keyword: 'finale', whole_word: false },
        { keyword: 'episode', whole_word: true },
      ],
    })
    await user.delete(`/api/v2/filters/${created.id}`).expect(200, {})
    expect((await user.get('/api/v2/filters').expect(200)).body).toEqual([])
  })

  it('refuses blank titles, bad contexts and actions with Mastodon’s errors', async () => {
    await alice
      .post('/api/v2/filters', { title: '', context: ['home'] })
      .expect(422, { error: "Validation failed: Title can't be blank" })
    await alice
      .post('/api/v2/filters', { title: 'x', context: [] })
      .expect(422, { error: "Validation failed: Context can't be blank" })
    await alice
      .post('/api/v2/filters', { title: 'x', context: ['home', 'everywhere'] })
      .expect(422, { error: 'Validation failed: Context None or invalid context supplied' })
    await alice
      .post('/api/v2/filters', { title: 'x', context: ['home'], filter_action: 'explode' })
      .expect(422, { error: 'Validation failed: Filter action is not included in the list' })
    await alice
      .post('/api/v2/filters', { title: 'x', context: ['home'], keywords_attributes: [{ keyword: ' ' }] })
      .expect(422, { error: "Validation failed: Keyword can't be blank" })
    expect((await alice.get('/api/v2/filters').expect(200)).body).toEqual([])
    const readOnly = await signUp(stack, { scope: 'read' })
    await readOnly.post('/api/v2/filters', { title: 'x', context: ['home'] }).expect(403)
  })

  it('manages keywords and statuses as sub-resources', async () => {
    const user = await signUp(stack)
    const filter = await createFilter(user, { title: 'k', context: ['thread'] })
    const keyword = (
      await user
        .post(`/api/v2/filters/${filter.id}/keywords`, { keyword: 'rust', whole_word: false })
        .expect(200)
    ).body
    expect(keyword).toEqual({ id: expect.any(String), keyword: 'rust', whole_word: false })
    expect((await user.get(`/api/v2/filters/${filter.id}/keywords`).expect(200)).body).toEqual([keyword])
    expect((await user.get(`/api/v2/filters/keywords/${keyword.id}`).expect(200)).body).toEqual(keyword)
    const changed = await stack
      .api()
      .put(`/api/v2/filters/keywords/${keyword.id}`)
      .set('Authorization', `Bearer ${user.token}`)
      .send({ keyword: 'go' })
      .expect(200)
    expect(changed.body).toEqual({ id: keyword.id, keyword: 'go', whole_word: false })
    await bob.get(`/api/v2/filters/keywords/${keyword.id}`).expect(404)
    await user.delete(`/api/v2/filters/keywords/${keyword.id}`).expect(200, {})
    await user.get(`/api/v2/filters/keywords/${keyword.id}`).expect(404)

    const statusId = await post(alice, 'a status to filter')
    const rule = (
      await user.post(`/api/v2/filters/${filter.id}/statuses`, { status_id: statusId }).expect(200)
    ).body
    expect(rule).toEqual({ id: expect.any(String), status_id: statusId })
    await user
      .post(`/api/v2/filters/${filter.id}/statuses`, { status_id: statusId })
      .expect(422, { error: 'Validation failed: Status has already been taken' })
    await user
      .post(`/api/v2/filters/${filter.id}/statuses`, { status_id: '12345' })
      .expect(422, { error: 'Validation failed: Status must exist' })
    expect((await user.get(`/api/v2/filters/${filter.id}/statuses`).expect(200)).body).toEqual([rule])
    expect((await user.get(`/api/v2/filters/statuses/${rule.id}`).expect(200)).body).toEqual(rule)
    await bob.delete(`/api/v2/filters/statuses/${rule.id}`).expect(404)
    await user.delete(`/api/v2/filters/statuses/${rule.id}`).expect(200, {})
    expect((await user.get(`/api/v2/filters/${filter.id}`).expect(200)).body.statuses).toEqual([])
  })
})

describe('filtered statuses', () => {
  it('warns with keyword matches on public timelines and hides with hide filters, keeping the Link', async () => {
    const viewer = await signUp(stack)
    const plain = await post(alice, 'an ordinary day')
    const cats = await post(alice, 'I love Cats and kittens')
    const warn = await createFilter(viewer, {
      title: 'Pets',
      context: ['public'],
      keywords_attributes: [
        { keyword: 'cats', whole_word: true },
        { keyword: 'kitten', whole_word: true },
      ],
    })
    const page = (await viewer.get('/api/v1/timelines/public?limit=2').expect(200)).body as Status[]
    expect(page.map((s) => s.id)).toEqual([cats, plain])
    expect(page[0]!.filtered).toEqual([
      {
        filter: {
          id: warn.id,
          title: 'Pets',
          context: ['public'],
          expires_at: null,
          filter_action: 'warn',
        },
        keyword_matches: ['Cats'],
        status_matches: null,
      },
    ])
    expect(page[1]!.filtered).toEqual([])
    // Whole words: "kittens" does not match "kitten"; without a token there is no `filtered` match.
    expect(
      ((await stack.api().get('/api/v1/timelines/public?limit=1').expect(200)).body as Status[])[0]!.filtered,
    ).toEqual([])

    await stack
      .api()
      .put(`/api/v2/filters/${warn.id}`)
      .set('Authorization', `Bearer ${viewer.token}`)
      .send({ filter_action: 'hide' })
      .expect(200)
    const hidden = await viewer.get('/api/v1/timelines/public?limit=1').expect(200)
    expect(hidden.body).toEqual([])
    // The page was read, so its Link still leads on.
    const next = links(hidden.headers.link).next!
    expect(next).toContain(`max_id=${cats}`)
    expect(((await viewer.get(onStack(stack, next)).expect(200)).body as Status[])[0]!.id).toBe(plain)
    // A hide filter of another context only warns here.
    await stack
      .api()
      .put(`/api/v2/filters/${warn.id}`)
      .set('Authorization', `Bearer ${viewer.token}`)
      .send({ context: ['home'] })
      .expect(200)
    const shown = (await viewer.get('/api/v1/timelines/public?limit=1').expect(200)).body as Status[]
    expect(shown[0]!.filtered[0]!.filter.filter_action).toBe('hide')
  })

  it('matches status rules on the status and on its reblogs, and ignores expired filters', async () => {
    const viewer = await signUp(stack)
    const original = await post(alice, 'filtered by id')
    const boost = (await bob.post(`/api/v1/statuses/${original}/reblog`).expect(200)).body.id as string
    const filter = await createFilter(viewer, { title: 'this one', context: ['thread'] })
    await viewer.post(`/api/v2/filters/${filter.id}/statuses`, { status_id: original }).expect(200)
    const seen = (await viewer.get(`/api/v1/statuses/${boost}`).expect(200)).body as Status
    expect(seen.filtered).toEqual([
      expect.objectContaining({ status_matches: [original], keyword_matches: null }),
    ])
    expect(seen.reblog!.filtered).toEqual([expect.objectContaining({ status_matches: [original] })])

    await createFilter(viewer, {
      title: 'gone',
      context: ['public'],
      expires_in: 0,
      keywords_attributes: [{ keyword: 'filtered' }],
    })
    const again = (await viewer.get(`/api/v1/statuses/${original}`).expect(200)).body as Status
    expect(again.filtered.map((f) => f.filter.title)).toEqual(['this one'])
  })

  it('hides in threads, account timelines, home and notifications by context', async () => {
    const viewer = await reader(stack)
    await viewer.post(`/api/v1/accounts/${alice.id}/follow`).expect(200)
    const root = await post(alice, 'thread root')
    const reply = await post(alice, { status: 'a reply about spiders', in_reply_to_id: root })
    const mention = await post(alice, `@${viewer.username} look, spiders`)
    const kept = await post(alice, `@${viewer.username} nothing scary`)
    await createFilter(viewer, {
      title: 'Arachnophobia',
      context: ['thread', 'account', 'home', 'notifications'],
      filter_action: 'hide',
      keywords_attributes: [{ keyword: 'spiders' }],
    })
    expect((await viewer.get(`/api/v1/statuses/${root}/context`).expect(200)).body.descendants).toEqual([])
    expect((await alice.get(`/api/v1/statuses/${root}/context`).expect(200)).body.descendants).toHaveLength(1)
    const own = (await viewer.get(`/api/v1/accounts/${alice.id}/statuses`).expect(200)).body as Status[]
    expect(own.map((s) => s.id)).not.toContain(reply)
    expect(own.map((s) => s.id)).toContain(root)

    const home = await ids(stack, viewer)
    expect(home).toEqual(expect.arrayContaining([root, kept]))
    expect(home).not.toContain(mention)
    expect(home).not.toContain(reply)

    await timeline(stack, viewer)
    const notifications = (await viewer.get('/api/v1/notifications').expect(200)).body as {
      status: { id: string }
    }[]
    expect(notifications.map((n) => n.status.id)).toEqual([kept])
  })
})

describe('filters v1', () => {
  it('is a view over v2: one keyword per filter, irreversible is hide', async () => {
    const user = await signUp(stack)
    const created = (
      await user
        .post('/api/v1/filters', { phrase: 'crypto', context: ['home', 'public'], irreversible: true })
        .expect(200)
    ).body
    expect(created).toEqual({
      id: expect.any(String),
      phrase: 'crypto',
      context: ['home', 'public'],
      whole_word: true,
      expires_at: null,
      irreversible: true,
    })
    const v2 = (await user.get('/api/v2/filters').expect(200)).body
    expect(v2).toMatchObject([{ title: 'crypto', filter_action: 'hide', keywords: [{ id: created.id }] }])
    expect((await user.get('/api/v1/filters').expect(200)).body).toEqual([created])
    expect((await user.get(`/api/v1/filters/${created.id}`).expect(200)).body).toEqual(created)

    const put = (body: object) =>
      stack.api().put(`/api/v1/filters/${created.id}`).set('Authorization', `Bearer ${user.token}`).send(body)
    expect((await put({ phrase: 'nft', irreversible: false }).expect(200)).body).toMatchObject({
      phrase: 'nft',
      irreversible: false,
    })
    await user.post(`/api/v2/filters/${v2[0].id}/keywords`, { keyword: 'web3' }).expect(200)
    await put({ context: ['home'] }).expect(422, {
      error:
        'These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.',
    })
    await put({ phrase: 'nfts' }).expect(200)
    await user.delete(`/api/v1/filters/${created.id}`).expect(200, {})
    expect(
      (await user.get('/api/v1/filters').expect(200)).body.map((f: { phrase: string }) => f.phrase),
    ).toEqual(['web3'])
    await bob.get(`/api/v1/filters/${created.id}`).expect(404)
    await user.post('/api/v1/filters', { phrase: '', context: ['home'] }).expect(422)
  })
})
