import { recordFailure } from '../../apps/accounts/src/federation/transport/delivery-failures'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'

let stack: Stack
let admin: string
beforeAll(async () => {
  stack = await startStack()
  const boss = await stack.createUser({ username: 'boss', role: 'admin' })
  admin = await stack.userToken('read write admin:read admin:write', boss)
})
afterAll(() => stack.stop())

const db = () => stack.accounts.ctx.db
const DAY_MS = 24 * 3600 * 1000
async function remote(username: string, domain: string) {
  await db()('accounts').insert({ username, domain, uri: `https://${domain}/users/${username}` })
}
const block = (domain: string, severity: string) =>
  stack.api().post('/api/v1/admin/domain_blocks').set(bearer(admin)).send({ domain, severity }).expect(200)

describe('GET /api/v1/instance/peers', () => {
  it('lists the known servers but not blocked ones, publicly and cached a day; 404 when SHOW_PEERS is off', async () => {
    await remote('ann', 'a.example')
    await remote('amy', 'a.example')
    await remote('bob', 'b.example:8443')
    await remote('sam', 'spam.example')
    await remote('sid', 'sub.spam.example')
    await remote('sil', 'silenced.example')
    await block('spam.example', 'suspend')
    await block('silenced.example', 'silence')

    const res = await stack.api().get('/api/v1/instance/peers').expect(200)
    expect(res.body).toEqual(['a.example', 'b.example:8443'])
    expect(res.headers['cache-control']).toBe('max-age=86400, public')

    stack.accounts.ctx.config.SHOW_PEERS = false
    try {
      const off = await stack.api().get('/api/v1/instance/peers').expect(404)
      expect(off.body).toEqual({ error: expect.any(String) })
    } finally {
      stack.accounts.ctx.config.SHOW_PEERS = true
    }
  })
})

describe('GET /api/v1/instance/activity', () => {
  it('gives 12 weeks of local posts, logins and sign-ups as strings, this week first; 404 when SHOW_ACTIVITY is off', async () => {
    const writer = await stack.createUser({ username: 'writer' })
    const token = await stack.userToken('read write', writer)
    // Back after two days away: this request notes the login of this week.
    await db()('users')
      .where({ id: writer.userId })
      .update({ current_sign_in_at: new Date(Date.now() - 2 * DAY_MS) })
    for (const text of ['one', 'two'])
      await stack.api().post('/api/v1/statuses').set(bearer(token)).send({ status: text }).expect(200)
    expect(await db()('weekly_logins').where({ user_id: writer.userId })).toHaveLength(1)
    // A remote status is not counted.
    const [{ id: remoteId }] = await db()('accounts').where({ username: 'ann' }).select('id')
    await db()('statuses').insert({
      account_id: remoteId,
      text: 'x',
      uri: 'https://a.example/s/1',
      visibility: 'public',
    })
    // Someone who signed up two weeks ago and was last seen then.
    const old = await stack.createUser({ username: 'old' })
    const twoWeeksAgo = new Date(Date.now() - 14 * DAY_MS)
    await db()('users')
      .where({ id: old.userId })
      .update({ created_at: twoWeeksAgo, current_sign_in_at: twoWeeksAgo })

    const res = await stack.api().get('/api/v1/instance/activity').expect(200)
    expect(res.headers['cache-control']).toBe('max-age=86400, public')
    expect(res.body).toHaveLength(12)
    const monday = new Date()
    monday.setUTCHours(0, 0, 0, 0)
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7))
    const weeks = res.body.map((w: { week: string }) => w.week)
    expect(weeks).toEqual(
      Array.from({ length: 12 }, (_, i) => String((monday.getTime() - i * 7 * DAY_MS) / 1000)),
    )
    // boss and writer signed up and used the server this week; 'old' two weeks ago.
    expect(res.body[0]).toEqual({ week: weeks[0], statuses: '2', logins: '2', registrations: '2' })
    expect(res.body[1]).toEqual({ week: weeks[1], statuses: '0', logins: '0', registrations: '0' })
    expect(res.body[2]).toEqual({ week: weeks[2], statuses: '0', logins: '1', registrations: '1' })

    stack.accounts.ctx.config.SHOW_ACTIVITY = false
    try {
      await stack.api().get('/api/v1/instance/activity').expect(404)
    } finally {
      stack.accounts.ctx.config.SHOW_ACTIVITY = true
    }
  })
})

describe('GET /api/v1/admin/instances', () => {
  it('shows each known server with its accounts, delivery failures and since when it is unavailable', async () => {
    await remote('cat', 'down.example')
    const start = Date.UTC(2026, 10, 1)
    for (let day = 0; day < 7; day++)
      await recordFailure(db(), 'down.example', new Date(start + day * DAY_MS))
    await recordFailure(db(), 'flaky.example', new Date(start))

    const res = await stack.api().get('/api/v1/admin/instances').set(bearer(admin)).expect(200)
    const byDomain = Object.fromEntries(res.body.map((i: { domain: string }) => [i.domain, i]))
    expect(res.body.map((i: { domain: string }) => i.domain)).toEqual([...Object.keys(byDomain)].sort())
    expect(byDomain['a.example']).toEqual({
      domain: 'a.example',
      accounts_count: 2,
      delivery_failures: 0,
      failure_days: [],
      unavailable_since: null,
      domain_block: null,
    })
    expect(byDomain['spam.example']).toMatchObject({ accounts_count: 1, domain_block: 'suspend' })
    expect(byDomain['down.example']).toEqual({
      domain: 'down.example',
      accounts_count: 1,
      delivery_failures: 7,
      failure_days: Array.from({ length: 7 }, (_, d) => `2026-11-0${d + 1}`),
      unavailable_since: new Date(start + 6 * DAY_MS).toISOString(),
      domain_block: null,
    })
    expect(byDomain['flaky.example']).toMatchObject({
      accounts_count: 0,
      delivery_failures: 1,
      unavailable_since: null,
    })
  })

  it('pages by offset with Link headers, sorted by domain', async () => {
    const all = (await stack.api().get('/api/v1/admin/instances').set(bearer(admin)).expect(200)).body
    const domains = all.map((i: { domain: string }) => i.domain)
    expect(domains.length).toBeGreaterThan(3)
    const first = await stack.api().get('/api/v1/admin/instances?limit=2').set(bearer(admin)).expect(200)
    expect(first.body.map((i: { domain: string }) => i.domain)).toEqual(domains.slice(0, 2))
    expect(first.headers.link).toBe(`<${stack.url}/api/v1/admin/instances?limit=2&offset=2>; rel="next"`)
    const third = await stack
      .api()
      .get('/api/v1/admin/instances?limit=2&offset=4')
      .set(bearer(admin))
      .expect(200)
    expect(third.body.map((i: { domain: string }) => i.domain)).toEqual(domains.slice(4, 6))
    expect(third.headers.link).toContain(`<${stack.url}/api/v1/admin/instances?limit=2&offset=2>; rel="prev"`)
    const past = await stack
      .api()
      .get(`/api/v1/admin/instances?offset=${domains.length}`)
      .set(bearer(admin))
      .expect(200)
    expect(past.body).toEqual([])
  })

  it('needs an admin and the admin:read scope', async () => {
    const user = await stack.createUser()
    const token = await stack.userToken('read write', user)
    await stack.api().get('/api/v1/admin/instances').set(bearer(token)).expect(403)
    const narrow = await stack.userToken(
      'admin:read:domain_blocks',
      await stack.createUser({ role: 'admin' }),
    )
    await stack.api().get('/api/v1/admin/instances').set(bearer(narrow)).expect(403)
    await stack.api().get('/api/v1/admin/instances').expect(401)
  })
})
