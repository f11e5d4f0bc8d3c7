import { startStack } from '../../stack'
import type { Stack } from '../../stack'

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

let stack: Stack
let alice: Awaited<ReturnType<Stack['createUser']>>
let bob: Awaited<ReturnType<Stack['createUser']>>
let pending: Awaited<ReturnType<Stack['createUser']>>
let unconfirmed: Awaited<ReturnType<Stack['createUser']>>
let suspended: Awaited<ReturnType<Stack['createUser']>>
let readToken: string

beforeAll(async () => {
  stack = await startStack()
  alice = await stack.createUser({ username: 'alice' })
  bob = await stack.createUser({ username: 'bobby_tables' })
  pending = await stack.createUser({ username: 'pending_pat', approved: false })
  unconfirmed = await stack.createUser({ username: 'unconfirmed_una', confirmed: false })
  suspended = await stack.createUser({ username: 'suspended_sam' })
  const db = stack.accounts.ctx.db
  await db('accounts')
    .where({ id: alice.accountId })
    .update({ display_name: 'Alice Liddell', note: 'Down\nthe hole' })
  await db('accounts')
    .where({ id: suspended.accountId })
    .update({
      display_name: 'Sam',
      note: 'secret',
      locked: true,
      fields: JSON.stringify([{ name: 'a', value: 'b', verified_at: null }]),
      followers_count: 3,
      suspended_at: db.fn.now(),
    })
  readToken = await stack.userToken('read', alice)
})
afterAll(() => stack.stop())

describe('GET /api/v1/accounts/:id', () => {
  it('answers the Account entity to anonymous clients', async () => {
    const res = await stack.api().get(`/api/v1/accounts/${alice.accountId}`).expect(200)
    expect(res.body).toMatchObject({
      id: alice.accountId,
      username: 'alice',
      acct: 'alice',
      display_name: 'Alice Liddell',
      note: '<p>Down<br>the hole</p>',
      url: `${stack.url}/@alice`,
      avatar: `${stack.url}/avatars/original/missing.png`,
      locked: false,
      bot: false,
      group: false,
      emojis: [],
      fields: [],
      followers_count: 0,
    })
    expect(res.body.created_at).toMatch(/T00:00:00\.000Z$/)
    expect(res.body).not.toHaveProperty('suspended')
  })

  it('answers with a read:accounts token, and 403 with a token of another scope', async () => {
    await stack.api().get(`/api/v1/accounts/${bob.accountId}`).set(bearer(readToken)).expect(200)
    const writeStatuses = await stack.userToken('write:statuses')
    const res = await stack
      .api()
      .get(`/api/v1/accounts/${bob.accountId}`)
      .set(bearer(writeStatuses))
      .expect(403)
    expect(res.body.error).toBe('This action is outside the authorized scopes')
  })

  it.each(['123123', 'not-a-number', '99999999999999999999999', '-1'])(
    'answers 404 Record not found for the id %s',
    async (id) => {
      const res = await stack.api().get(`/api/v1/accounts/${id}`).expect(404)
      expect(res.body).toEqual({ error: 'Record not found' })
    },
  )

  it('hides pending and unconfirmed local users', async () => {
    await stack.api().get(`/api/v1/accounts/${pending.accountId}`).expect(404)
    await stack.api().get(`/api/v1/accounts/${unconfirmed.accountId}`).expect(404)
  })

  it('shows a suspended account as 200 with suspended: true and its data emptied', async () => {
    const res = await stack.api().get(`/api/v1/accounts/${suspended.accountId}`).expect(200)
    expect(res.body).toMatchObject({
      id: suspended.accountId,
      username: 'suspended_sam',
      acct: 'suspended_sam',
      suspended: true,
      display_name: '',
      note: '',
      locked: false,
      fields: [],
      emojis: [],
      followers_count: 3,
      avatar: `${stack.url}/avatars/original/missing.png`,
    })
  })
})

describe('GET /api/v1/accounts?id[]=', () => {
  it('answers the existing accounts, ignoring unknown, hidden and malformed ids', async () => {
    const query = [alice.accountId, bob.accountId, '123123', pending.accountId, 'x', alice.accountId]
      .map((id) => `id[]=${id}`)
      .join('&')
    const res = await stack.api().get(`/api/v1/accounts?${query}`).set(bearer(readToken)).expect(200)
    expect(res.body.map((a: { id: string }) => a.id).sort()).toEqual([alice.accountId, bob.accountId].sort())
  })

  it('includes suspended accounts, rendered as suspended', async () => {
    const res = await stack.api().get(`/api/v1/accounts?id[]=${suspended.accountId}`).expect(200)
    expect(res.body).toEqual([expect.objectContaining({ suspended: true, display_name: '' })])
  })

  it('answers 422 Mastodon::ValidationError for more than 40 ids', async () => {
    const query = Array.from({ length: 41 }, (_, i) => `id[]=${i + 1}`).join('&')
    const res = await stack.api().get(`/api/v1/accounts?${query}`).expect(422)
    expect(res.body).toEqual({ error: 'Mastodon::ValidationError' })
  })

  it('answers an empty list without ids', async () => {
    expect((await stack.api().get('/api/v1/accounts').expect(200)).body).toEqual([])
  })
})

describe('GET /api/v1/accounts/lookup', () => {
  it.each(['alice', '@alice', 'ALICE'])('finds %s', async (acct) => {
    const res = await stack
      .api()
      .get('/api/v1/accounts/lookup')
      .query({ acct })
      .set(bearer(readToken))
      .expect(200)
    expect(res.body.id).toBe(alice.accountId)
  })

  it('finds user@our-domain', async () => {
    const host = new URL(stack.url).host
    const res = await stack
      .api()
      .get('/api/v1/accounts/lookup')
      .query({ acct: `alice@${host}` })
      .expect(200)
    expect(res.body.id).toBe(alice.accountId)
  })

  it.each([['nobody'], ['alice@elsewhere.example'], ['a@b@c'], [''], ['pending_pat']])(
    'answers 404 for %p',
    async (acct) => {
      const res = await stack.api().get('/api/v1/accounts/lookup').query({ acct }).expect(404)
      expect(res.body).toEqual({ error: 'Record not found' })
    },
  )

  it('answers 404 without acct and with acct as an array', async () => {
    await stack.api().get('/api/v1/accounts/lookup').expect(404)
    await stack.api().get('/api/v1/accounts/lookup?acct[]=alice').expect(404)
  })
})

describe('GET /api/v1/accounts/search', () => {
  const search = (query: Record<string, unknown>, token = readToken) =>
    stack.api().get('/api/v1/accounts/search').query(query).set(bearer(token))

  it('finds accounts by username or display name prefix, exact username first', async () => {
    const byName = await search({ q: 'ali' }).expect(200)
    expect(byName.body.map((a: { username: string }) => a.username)).toEqual(['alice'])
    const byDisplayName = await search({ q: 'Alice L' }).expect(200)
    expect(byDisplayName.body[0].id).toBe(alice.accountId)
    const atSign = await search({ q: '@bobby' }).expect(200)
    expect(atSign.body[0].id).toBe(bob.accountId)
  })

  it('leaves out suspended, pending and unconfirmed accounts', async () => {
    for (const q of ['suspended', 'pending', 'unconfirmed'])
      expect((await search({ q }).expect(200)).body).toEqual([])
  })

  it('treats LIKE wildcards literally', async () => {
    expect((await search({ q: '%' }).expect(200)).body).toEqual([])
    expect((await search({ q: '_' }).expect(200)).body).toEqual([])
  })

  it('honours limit and offset', async () => {
    await stack.createUser({ username: 'anna_one' })
    await stack.createUser({ username: 'anna_two' })
    const everything = await search({ q: 'anna' }).expect(200)
    expect(everything.body.map((a: { username: string }) => a.username)).toEqual(['anna_one', 'anna_two'])
    const ids = (res: { body: { id: string }[] }) => res.body.map((a) => a.id)
    expect(ids(await search({ q: 'anna', limit: 1 }).expect(200))).toEqual(ids(everything).slice(0, 1))
    expect(ids(await search({ q: 'anna', limit: 1, offset: 1 }).expect(200))).toEqual(
      ids(everything).slice(1, 2),
    )
    // Mastodon's limit_param: a limit that is not a number reads as 0.
    expect((await search({ q: 'a', limit: 'lots' }).expect(200)).body).toEqual([])
  })

  it('following=true keeps only accounts the viewer follows; resolve is accepted and changes nothing', async () => {
    const fan = await stack.createUser({ username: 'fan_of_bees' })
    const followed = await stack.createUser({ username: 'bee_keeper' })
    await stack.createUser({ username: 'bee_watcher' })
    const fanToken = await stack.userToken('read follow', fan)
    await stack.api().post(`/api/v1/accounts/${followed.accountId}/follow`).set(bearer(fanToken)).expect(200)
    const usernames = (res: { body: { username: string }[] }) => res.body.map((a) => a.username)

    expect(usernames(await search({ q: 'bee' }, fanToken).expect(200))).toEqual(['bee_keeper', 'bee_watcher'])
    expect(usernames(await search({ q: 'bee', following: 'true' }, fanToken).expect(200))).toEqual([
      'bee_keeper',
    ])
    expect(usernames(await search({ q: 'bee', following: 'false' }, fanToken).expect(200))).toHaveLength(2)
    // Following is the viewer's: alice follows nobody.
    expect((await search({ q: 'bee', following: true }).expect(200)).body).toEqual([])
    expect(usernames(await search({ q: 'bee', resolve: 'true' }, fanToken).expect(200))).toEqual([
      'bee_keeper',
      'bee_watcher',
    ])
    expect(
      usernames(await search({ q: 'bee', resolve: true, following: true }, fanToken).expect(200)),
    ).toEqual(['bee_keeper'])
  })

  it('requires q (400), a user (422) and a token (401)', async () => {
    const missing = await search({}).expect(400)
    expect(missing.body).toEqual({ error: 'param is missing or the value is empty or invalid: q' })
    const appToken = await stack.appToken('read')
    expect((await search({ q: 'a' }, appToken).expect(422)).body.error).toBe(
      'This method requires an authenticated user',
    )
    await stack.api().get('/api/v1/accounts/search?q=a').expect(401)
  })
})

describe('GET /api/v2/search and /api/v1/search', () => {
  it('answers accounts, statuses and hashtags', async () => {
    const res = await stack.api().get('/api/v2/search').query({ q: 'alice', type: 'accounts' }).expect(200)
    expect(res.body).toEqual({
      accounts: [expect.objectContaining({ id: alice.accountId })],
      statuses: [],
      hashtags: [],
    })
    const v1 = await stack
      .api()
      .get('/api/v1/search')
      .query({ q: 'alice' })
      .set(bearer(readToken))
      .expect(200)
    expect(v1.body.accounts[0].id).toBe(alice.accountId)
  })

  it('answers no accounts for type=statuses', async () => {
    const res = await stack.api().get('/api/v2/search').query({ q: 'alice', type: 'statuses' }).expect(200)
    expect(res.body.accounts).toEqual([])
  })

  it('requires q, and a user to page', async () => {
    await stack.api().get('/api/v2/search').expect(400)
    const paged = await stack.api().get('/api/v2/search').query({ q: 'a', offset: 5 }).expect(401)
    expect(paged.body.error).toBe('Search queries pagination is not supported without authentication')
    await stack.api().get('/api/v2/search').query({ q: 'a', offset: 5 }).set(bearer(readToken)).expect(200)
  })
})

describe('instance documents', () => {
  it('GET /api/v2/instance describes the server', async () => {
    const res = await stack.api().get('/api/v2/instance').expect(200)
    expect(res.body).toMatchObject({
      domain: new URL(stack.url).host,
      title: 'Roost',
      version: '4.5.0 (compatible; Roost 0.1.0)',
      registrations: { enabled: true, approval_required: false, message: null },
      configuration: {
        vapid: { public_key: stack.env.VAPID_PUBLIC_KEY },
        statuses: { max_characters: 500, max_media_attachments: 4 },
        accounts: { max_featured_tags: 10, max_profile_fields: 4 },
        media_attachments: { supported_mime_types: expect.arrayContaining(['image/png', 'image/jpeg']) },
      },
      rules: [],
    })
    expect(res.body.usage.users.active_month).toBeGreaterThanOrEqual(2)
    expect(typeof res.body.api_versions.mastodon).toBe('number')
  })

  it('GET /api/v1/instance keeps the old shape', async () => {
    const res = await stack.api().get('/api/v1/instance').expect(200)
    expect(res.body).toMatchObject({
      uri: new URL(stack.url).host,
      version: '4.5.0 (compatible; Roost 0.1.0)',
      registrations: true,
      approval_required: false,
      configuration: { statuses: { max_characters: 500 } },
      rules: [],
    })
    expect(res.body.stats.user_count).toBeGreaterThanOrEqual(2)
  })

  it('names an admin as the contact account', async () => {
    await stack.createUser({ username: 'the_admin', role: 'admin' })
    const res = await stack.api().get('/api/v2/instance').expect(200)
    expect(res.body.contact.account.username).toBe('the_admin')
  })

  it('GET /api/v1/custom_emojis answers an empty list', async () => {
    expect((await stack.api().get('/api/v1/custom_emojis').expect(200)).body).toEqual([])
  })
})
