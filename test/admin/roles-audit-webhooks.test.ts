import { createHmac } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'

/** Roles, the audit log and webhooks through the API (docs/moderation.md). */
let stack: Stack
let owner: { token: string; accountId: string }
let admin: { token: string; accountId: string }
const staff = async (role: string) => {
  const user = await stack.createUser({ role })
  return {
    token: await stack.userToken('read write admin:read admin:write', user),
    accountId: user.accountId,
  }
}
beforeAll(async () => {
  // Webhook receivers listen on loopback, reachable as federation peers are in tests.
  stack = await startStack({ env: { RATE_LIMITS: 'off', FEDERATION_ALLOW_HTTP: 'true' } })
  owner = await staff('owner')
  admin = await staff('admin')
})
afterAll(() => stack.stop())

const as = (who: { token: string }) => ({
  get: (path: string) => stack.api().get(path).set('Authorization', `Bearer ${who.token}`),
  post: (path: string, body: object = {}) =>
    stack.api().post(path).set('Authorization', `Bearer ${who.token}`).send(body),
  put: (path: string, body: object = {}) =>
    stack.api().put(path).set('Authorization', `Bearer ${who.token}`).send(body),
  delete: (path: string) => stack.api().delete(path).set('Authorization', `Bearer ${who.token}`),
})

describe('roles', () => {
  it('lists the seeded roles with Mastodon ids and bits', async () => {
    const res = await as(owner).get('/api/v1/admin/roles').expect(200)
    expect(
      res.body.map((r: { id: string; name: string; permissions: string }) => [r.id, r.name, r.permissions]),
    ).toEqual([
      ['3', 'Owner', '1'],
      ['2', 'Admin', '983038'],
      ['1', 'Moderator', '1308'],
      ['-99', '', '65536'],
    ])
  })

  it('a custom role is made, given, shown on the profile and in the credential account; elevation is refused', async () => {
    const created = await as(admin)
      .post('/api/v1/admin/roles', {
        name: 'Helper',
        color: '#3a7',
        highlighted: true,
        position: 50,
        permissions_as_keys: ['manage_reports', 'view_dashboard'],
      })
      .expect(200)
    expect(created.body).toMatchObject({ name: 'Helper', permissions: '24', color: '#3a7', position: 50 })
    expect(created.body.permissions_as_keys).toEqual(['view_dashboard', 'manage_reports'])

    const helper = await stack.createUser({ username: 'helper' })
    const assigned = await as(admin)
      .post(`/api/v1/admin/accounts/${helper.accountId}/role`, { role_id: created.body.id })
      .expect(200)
    expect(assigned.body.role).toMatchObject({ id: created.body.id, name: 'Helper', permissions: '24' })
    const token = await stack.userToken('read admin:read admin:write', helper)
    const me = await stack
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set('Authorization', `Bearer ${token}`)
    expect(me.body.role).toEqual({
      id: created.body.id,
      name: 'Helper',
      permissions: '24',
      color: '#3a7',
      highlighted: true,
    })
    expect(me.body.roles).toEqual([{ id: created.body.id, name: 'Helper', color: '#3a7' }])
    const profile = await stack.api().get(`/api/v1/accounts/${helper.accountId}`).expect(200)
    expect(profile.body.roles).toEqual([{ id: created.body.id, name: 'Helper', color: '#3a7' }])
    // The helper may read reports but not accounts.
    await stack.api().get('/api/v1/admin/reports').set('Authorization', `Bearer ${token}`).expect(200)
    await stack.api().get('/api/v1/admin/accounts').set('Authorization', `Bearer ${token}`).expect(403)

    // Mastodon's rules: no bits one lacks, no rank at or above one's own, not the Owner's role, not oneself.
    const elevated = await as(admin).post('/api/v1/admin/roles', {
      name: 'Boss',
      permissions_as_keys: ['administrator'],
    })
    expect(elevated.status).toBe(422)
    expect(elevated.body.error).toMatch(/permissions your current role does not have/)
    expect((await as(admin).post('/api/v1/admin/roles', { name: 'High', position: 100 })).status).toBe(422)
    expect((await as(admin).put('/api/v1/admin/roles/3', { name: 'Mine' })).status).toBe(403)
    expect(
      (await as(admin).post(`/api/v1/admin/accounts/${helper.accountId}/role`, { role_id: '3' })).status,
    ).toBe(403)
    expect(
      (await as(admin).post(`/api/v1/admin/accounts/${owner.accountId}/role`, { role_id: '' })).status,
    ).toBe(403)
    expect(
      (await as(admin).put('/api/v1/admin/roles/-99', { permissions_as_keys: ['manage_users'] })).status,
    ).toBe(422)

    // Deleting the role leaves its holder with none.
    await as(owner).delete(`/api/v1/admin/roles/${created.body.id}`).expect(200)
    await stack.api().get('/api/v1/admin/reports').set('Authorization', `Bearer ${token}`).expect(403)
    const after = await stack
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set('Authorization', `Bearer ${token}`)
    expect(after.body.role).toMatchObject({ id: '-99', permissions: '65536' })
  })
})

describe('audit log', () => {
  it('records who did what to what, newest first, filtered and paged with Link headers', async () => {
    await as(admin).post('/api/v1/admin/ip_blocks', { ip: '192.0.2.0/24', severity: 'no_access' }).expect(200)
    const block = await as(admin).post('/api/v1/admin/domain_blocks', { domain: 'bad.example' }).expect(200)
    await as(admin).delete(`/api/v1/admin/domain_blocks/${block.body.id}`).expect(200)

    const all = await as(owner).get(`/api/v1/admin/action_logs?account_id=${admin.accountId}`).expect(200)
    const lines = all.body.map((l: { action: string; target_type: string; human_identifier: string }) =>
      [l.action, l.target_type, l.human_identifier].join(' '),
    )
    expect(lines.slice(0, 3)).toEqual([
      'destroy DomainBlock bad.example',
      'create DomainBlock bad.example',
      'create IpBlock 192.0.2.0/24',
    ])
    expect(all.body[0].account.id).toBe(admin.accountId)
    expect(lines).toContain('change_role User helper')

    const creates = await as(owner)
      .get(`/api/v1/admin/action_logs?account_id=${admin.accountId}&action=create&limit=1`)
      .expect(200)
    expect(creates.body.map((l: { target_type: string }) => l.target_type)).toEqual(['DomainBlock'])
    const next = /<([^>]+)>; rel="next"/.exec(creates.headers.link!)![1]!
    expect(next).toContain('action=create')
    const second = await as(owner)
      .get(new URL(next).pathname + new URL(next).search)
      .expect(200)
    expect(second.body.map((l: { target_type: string }) => l.target_type)).toEqual(['IpBlock'])

    // A moderator holds view_audit_log; a role without it is refused.
    const user = await stack.userToken('read admin:read')
    await stack.api().get('/api/v1/admin/action_logs').set('Authorization', `Bearer ${user}`).expect(403)
  })
})

describe('webhooks', () => {
  it('a receiver on loopback gets a signed report.created, retried after a failure', async () => {
    const received: { headers: http.IncomingHttpHeaders; body: string }[] = []
    let failFirst = true
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        if (failFirst) {
          failFirst = false
          res.writeHead(503).end()
          return
        }
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() })
        res.writeHead(200).end('ok')
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
      const bad = await as(admin).post('/api/v1/admin/webhooks', { url, events: ['report.exploded'] })
      expect(bad.status).toBe(422)
      const hook = await as(admin)
        .post('/api/v1/admin/webhooks', { url, events: ['report.created'] })
        .expect(200)
      expect(hook.body).toMatchObject({ url, events: ['report.created'], enabled: true })
      expect(hook.body.secret).toMatch(/^[0-9a-f]{40}$/)
      const rotated = await as(admin).post(`/api/v1/admin/webhooks/${hook.body.id}/rotate_secret`).expect(200)
      expect(rotated.body.secret).not.toBe(hook.body.secret)

      const reporter = await stack.userToken('read write')
      const target = await stack.createUser()
      const report = await stack
        .api()
        .post('/api/v1/reports')
        .set('Authorization', `Bearer ${reporter}`)
        .send({ account_id: target.accountId, comment: 'spam' })
        .expect(200)
      await eventually(async () => received.length >= 1, 20_000)
      expect(received).toHaveLength(1)
      const [got] = received
      const expected = `sha256=${createHmac('sha256', rotated.body.secret).update(got!.body).digest('hex')}`
      expect(got!.headers['x-hub-signature']).toBe(expected)
      expect(got!.headers['content-type']).toBe('application/json')
      const payload = JSON.parse(got!.body)
      expect(payload.event).toBe('report.created')
      expect(Date.parse(payload.created_at)).not.toBeNaN()
      expect(payload.object).toMatchObject({ id: report.body.id, comment: 'spam' })
      expect(payload.object.target_account.id).toBe(target.accountId)

      // Disabled: nothing more is sent.
      await as(admin).post(`/api/v1/admin/webhooks/${hook.body.id}/disable`).expect(200)
      await stack
        .api()
        .post('/api/v1/reports')
        .set('Authorization', `Bearer ${reporter}`)
        .send({ account_id: target.accountId, comment: 'again' })
        .expect(200)
      await stack.drain()
      expect(received).toHaveLength(1)
    } finally {
      receiver.close()
    }
  })
})

describe('dashboard', () => {
  it('measures, dimensions and retention as Mastodon (unknown keys left out), and the queues for view_devops', async () => {
    const today = new Date().toISOString().slice(0, 10)
    const range = { start_at: today, end_at: today }
    const res = await as(admin)
      .post('/api/v1/admin/measures', {
        ...range,
        keys: ['new_users', 'opened_reports', 'roost_statuses', 'no_such_key'],
      })
      .expect(200)
    expect(res.body.map((m: { key: string }) => m.key)).toEqual([
      'new_users',
      'opened_reports',
      'roost_statuses',
    ])
    const users = await stack.accounts.ctx.db('users').count<{ n: string }[]>('* as n')
    expect(res.body[0]).toMatchObject({
      total: String(users[0]!.n),
      previous_total: '0',
      data: [{ date: `${today}T00:00:00Z`, value: String(users[0]!.n) }],
    })
    expect(Number(res.body[1].total)).toBeGreaterThanOrEqual(2) // the webhook test's reports
    expect((await as(admin).post('/api/v1/admin/measures', { keys: ['new_users'] })).status).toBe(400)

    const dims = await as(admin)
      .post('/api/v1/admin/dimensions', { ...range, keys: ['sources', 'software_versions', 'nope'] })
      .expect(200)
    expect(dims.body.map((d: { key: string }) => d.key)).toEqual(['sources', 'software_versions'])
    expect(dims.body[1].data.map((d: { key: string }) => d.key)).toEqual([
      'roost',
      'postgresql',
      'redis',
      'node',
    ])

    const cohorts = await as(admin)
      .post('/api/v1/admin/retention', { ...range, frequency: 'day' })
      .expect(200)
    expect(cohorts.body).toHaveLength(1)
    expect(cohorts.body[0]).toMatchObject({ period: `${today}T00:00:00Z`, frequency: 'day' })

    // view_devops: not a Moderator's; the seeded Admin holds it in Roost (docs/moderation.md).
    await as(await staff('moderator'))
      .get('/api/v1/admin/queues')
      .expect(403)
    await as(admin).get('/api/v1/admin/queues').expect(200)
    const queues = await as(owner).get('/api/v1/admin/queues').expect(200)
    expect(queues.body.queues.map((q: { name: string }) => q.name)).toContain('webhooks')
    expect(queues.body.federation).toEqual({ backlog: 0, unavailable_servers: 0 })
  })
})

describe('trends review', () => {
  it('a rejected tag or post leaves the public trends and stays in the review list; approving brings it back', async () => {
    const author = await stack.createUser()
    await stack.accounts.ctx.db('accounts').where({ id: author.accountId }).update({ discoverable: true })
    const token = await stack.userToken('read write', author)
    const status = await stack
      .api()
      .post('/api/v1/statuses')
      .set('Authorization', `Bearer ${token}`)
      .send({ status: 'Herons at dawn #heronwatch', visibility: 'public' })
      .expect(200)
    const fan = await stack.userToken('read write')
    await stack
      .api()
      .post(`/api/v1/statuses/${status.body.id}/favourite`)
      .set('Authorization', `Bearer ${fan}`)
      .expect(200)
    await stack.drain()
    const publicTags = async () =>
      (await stack.api().get('/api/v1/trends/tags').expect(200)).body.map((t: { name: string }) => t.name)
    const publicStatuses = async () =>
      (await stack.api().get('/api/v1/trends/statuses').expect(200)).body.map((s: { id: string }) => s.id)
    expect(await publicTags()).toContain('heronwatch')
    expect(await publicStatuses()).toContain(status.body.id)

    const review = await as(admin).get('/api/v1/admin/trends/tags').expect(200)
    const tag = review.body.find((t: { name: string }) => t.name === 'heronwatch')
    expect(tag).toMatchObject({ trendable: false, requires_review: true })
    const rejected = await as(admin).post(`/api/v1/admin/trends/tags/${tag.id}/reject`).expect(200)
    expect(rejected.body).toMatchObject({ name: 'heronwatch', trendable: false, requires_review: false })
    await as(admin).post(`/api/v1/admin/trends/statuses/${status.body.id}/reject`).expect(200)
    expect(await publicTags()).not.toContain('heronwatch')
    expect(await publicStatuses()).not.toContain(status.body.id)
    const stillReviewed = await as(admin).get('/api/v1/admin/trends/statuses').expect(200)
    expect(stillReviewed.body.map((s: { id: string }) => s.id)).toContain(status.body.id)
    await as(admin).post(`/api/v1/admin/trends/tags/${tag.id}/approve`).expect(200)
    await as(admin).post(`/api/v1/admin/trends/statuses/${status.body.id}/approve`).expect(200)
    expect(await publicTags()).toContain('heronwatch')
    expect(await publicStatuses()).toContain(status.body.id)
    expect((await as(admin).get('/api/v1/admin/trends/links').expect(200)).body).toEqual([])
    await as(admin).post('/api/v1/admin/trends/links/1/approve').expect(404)

    // Paged by offset with Mastodon's Link header, on the admin path (so the next page keeps unreviewed items).
    const first = await as(admin).get('/api/v1/admin/trends/statuses?limit=1').expect(200)
    expect(first.body).toHaveLength(1)
    expect(first.headers.link).toBe(
      `<${stack.url}/api/v1/admin/trends/statuses?limit=1&offset=1>; rel="next"`,
    )
    const later = await as(admin).get('/api/v1/admin/trends/tags?limit=1&offset=5').expect(200)
    expect(later.body).toEqual([])
    expect(later.headers.link).toBe(`<${stack.url}/api/v1/admin/trends/tags?limit=1&offset=4>; rel="prev"`)
    const links = await as(admin).get('/api/v1/admin/trends/links?offset=20').expect(200)
    expect(links.headers.link).toBe(`<${stack.url}/api/v1/admin/trends/links?offset=10>; rel="prev"`)
    expect((await stack.api().get('/api/v1/trends/links?offset=20').expect(200)).headers.link).toBe(
      `<${stack.url}/api/v1/trends/links?offset=10>; rel="prev"`,
    )
  })
})
