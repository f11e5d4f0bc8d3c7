import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { bullPrefix, QUEUES } from '@roost/events'
import { startStack } from '../../stack'
import type { Stack } from '../../stack'

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

let stack: Stack
let adminToken: string
let redis: Redis
let accountEvents: Queue
beforeAll(async () => {
  stack = await startStack()
  const admin = await stack.createUser({ username: 'boss', role: 'admin' })
  adminToken = await stack.userToken('read write admin:read admin:write', admin)
  redis = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: null })
  accountEvents = new Queue(QUEUES.accountEvents, {
    connection: redis,
    prefix: bullPrefix(stack.env.REDIS_PREFIX!),
  })
})
afterAll(async () => {
  await accountEvents.close()
  await redis.quit().catch(() => redis.disconnect())
  await stack.stop()
})

/** Polls until `check` returns a value, or fails after the deadline (no fixed sleeps). */
async function eventually<T>(check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function pendingSignUp(username: string) {
  return stack.createUser({ username, approved: false })
}

describe('admin accounts', () => {
  it('refuses non-admins with 403 and tokens without admin scopes with 403', async () => {
    // Admin scopes are only minted for admins (test/oauth/admin-scopes.test.ts), so a non-admin holding one is an
    // admin who was demoted after the token was issued: the endpoint checks the role on every request.
    const user = await stack.createUser({ role: 'admin' })
    const userToken = await stack.userToken('read write admin:read admin:write', user)
    await stack.accounts.ctx.db('users').where({ id: user.userId }).update({ role: 'user' })
    const res = await stack.api().get('/api/v1/admin/accounts').set(bearer(userToken)).expect(403)
    expect(res.body).toEqual({ error: 'This action is not allowed' })
    const admin = await stack.createUser({ role: 'admin' })
    const noAdminScope = await stack.userToken('read write', admin)
    const scoped = await stack.api().get('/api/v1/admin/accounts').set(bearer(noAdminScope)).expect(403)
    expect(scoped.body.error).toBe('This action is outside the authorized scopes')
  })

  it('lists accounts with the Admin::Account entity, filtered by pending (v1) and status=pending', async () => {
    const p = await pendingSignUp('waiting_will')
    await stack.accounts.ctx.db('users').where({ id: p.userId }).update({ sign_up_reason: 'please' })
    for (const query of ['pending=true', 'status=pending']) {
      const res = await stack.api().get(`/api/v1/admin/accounts?${query}`).set(bearer(adminToken)).expect(200)
      const found = res.body.find((a: { id: string }) => a.id === p.accountId)
      expect(found).toMatchObject({
        username: 'waiting_will',
        email: 'waiting_will@example.test',
        approved: false,
        confirmed: true,
        suspended: false,
        invite_request: 'please',
        role: { name: '' },
        account: { id: p.accountId, username: 'waiting_will' },
      })
      expect(res.body.every((a: { approved: boolean }) => !a.approved)).toBe(true)
    }
    const active = await stack
      .api()
      .get('/api/v1/admin/accounts?active=true')
      .set(bearer(adminToken))
      .expect(200)
    expect(active.body.some((a: { id: string }) => a.id === p.accountId)).toBe(false)
  })

  it('pages with limit and a Link header', async () => {
    const res = await stack.api().get('/api/v1/admin/accounts?limit=1').set(bearer(adminToken)).expect(200)
    expect(res.body).toHaveLength(1)
    expect(res.headers.link).toContain(`max_id=${res.body[0].id}`)
  })

  it('shows one account, 404 for unknown or malformed ids', async () => {
    const u = await stack.createUser()
    const res = await stack
      .api()
      .get(`/api/v1/admin/accounts/${u.accountId}`)
      .set(bearer(adminToken))
      .expect(200)
    expect(res.body).toMatchObject({ id: u.accountId, approved: true, domain: null })
    for (const id of ['123', 'abc']) {
      const missing = await stack
        .api()
        .get(`/api/v1/admin/accounts/${id}`)
        .set(bearer(adminToken))
        .expect(404)
      expect(missing.body).toEqual({ error: 'Record not found' })
    }
  })

  it('approves a pending sign-up: its token starts working; approving again is 403', async () => {
    const p = await pendingSignUp('approve_me')
    const admin = stack.api()
    await admin.post(`/api/v1/admin/accounts/${p.accountId}/approve`).set(bearer(adminToken)).expect(200)
    const token = await stack.userToken('read', p)
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(200)
    await stack.api().get(`/api/v1/accounts/${p.accountId}`).expect(200)
    await stack
      .api()
      .post(`/api/v1/admin/accounts/${p.accountId}/approve`)
      .set(bearer(adminToken))
      .expect(403)
  })

  it('rejects a pending sign-up: tokens published as revoked (push refuses them too), user.deleted, user and account deleted', async () => {
    const p = await stack.createUser({ username: 'reject_me' })
    // The token a sign-up gets at once (POST /api/v1/accounts), before approval.
    const token = await stack.userToken('read write push', p)
    await stack.accounts.ctx.db('users').where({ id: p.userId }).update({ approved: false })
    const res = await stack
      .api()
      .post(`/api/v1/admin/accounts/${p.accountId}/reject`)
      .set(bearer(adminToken))
      .expect(200)
    expect(res.body.username).toBe('reject_me')
    expect(await stack.accounts.ctx.db('users').where({ id: p.userId }).first()).toBeUndefined()
    expect(await stack.accounts.ctx.db('accounts').where({ id: p.accountId }).first()).toBeUndefined()
    await stack.api().post(`/api/v1/admin/accounts/${p.accountId}/reject`).set(bearer(adminToken)).expect(404)

    // The rejected user's token is refused everywhere, the push API included.
    const subscription = {
      subscription: {
        endpoint: 'https://push.example.test/rejected',
        keys: {
          p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
          auth: 'tBHItJI5svbpez7KI4CCXg',
        },
      },
      data: { alerts: { mention: true } },
    }
    const push = await stack.api().post('/api/v1/push/subscription').set(bearer(token)).send(subscription)
    expect(push.status).toBe(401)
    expect(push.body.error).toBe('The access token was revoked')
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(401)

    const deleted = await eventually(async () => {
      const jobs = await accountEvents.getJobs(['waiting', 'active', 'completed', 'delayed', 'failed'])
      return jobs.find((j) => j.name === 'user.deleted' && j.data.userId === p.userId)
    })
    expect(deleted.data).toEqual({ event: 'user.deleted', userId: p.userId })
    const revoked = await eventually(async () => {
      const jobs = await accountEvents.getJobs(['waiting', 'active', 'completed', 'delayed', 'failed'])
      return jobs.find((j) => j.name === 'token.revoked' && j.data.userId === p.userId)
    })
    expect(revoked).toBeDefined()
  })

  it('suspends: tokens revoked, account reads as suspended, account.suspended reaches the queue', async () => {
    const victim = await stack.createUser({ username: 'naughty' })
    const token = await stack.userToken('read', victim)
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(200)

    await stack
      .api()
      .post(`/api/v1/admin/accounts/${victim.accountId}/action`)
      .set(bearer(adminToken))
      .send({ type: 'suspend' })
      .expect(200)

    const revoked = await stack
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set(bearer(token))
      .expect(401)
    expect(revoked.body.error).toBe('The access token was revoked')
    const seen = await stack.api().get(`/api/v1/accounts/${victim.accountId}`).expect(200)
    expect(seen.body).toMatchObject({ suspended: true, display_name: '' })

    const job = await eventually(async () => {
      const jobs = await accountEvents.getJobs(['waiting', 'active', 'completed', 'delayed', 'failed'])
      return jobs.find((j) => j.name === 'account.suspended' && j.data.accountId === victim.accountId)
    })
    expect(job.data).toEqual({
      event: 'account.suspended',
      userId: victim.userId,
      accountId: victim.accountId,
    })
    const tokenEvents = await eventually(async () => {
      const jobs = await accountEvents.getJobs(['waiting', 'active', 'completed', 'delayed', 'failed'])
      const mine = jobs.filter((j) => j.name === 'token.revoked' && j.data.userId === victim.userId)
      return mine.length ? mine : undefined
    })
    expect(tokenEvents.length).toBeGreaterThanOrEqual(1)

    const listed = await stack
      .api()
      .get('/api/v1/admin/accounts?suspended=true')
      .set(bearer(adminToken))
      .expect(200)
    expect(listed.body.map((a: { id: string }) => a.id)).toContain(victim.accountId)

    const back = await stack
      .api()
      .post(`/api/v1/admin/accounts/${victim.accountId}/unsuspend`)
      .set(bearer(adminToken))
      .expect(200)
    expect(back.body.suspended).toBe(false)
    expect(
      (await stack.api().get(`/api/v1/accounts/${victim.accountId}`).expect(200)).body.suspended,
    ).toBeUndefined()
    await stack
      .api()
      .post(`/api/v1/admin/accounts/${victim.accountId}/unsuspend`)
      .set(bearer(adminToken))
      .expect(403)
  })

  it('silences (limited: true), disables (403 disabled) and accepts none', async () => {
    const quiet = await stack.createUser()
    const act = (id: string, type: unknown) =>
      stack.api().post(`/api/v1/admin/accounts/${id}/action`).set(bearer(adminToken)).send({ type })
    await act(quiet.accountId, 'silence').expect(200)
    expect((await stack.api().get(`/api/v1/accounts/${quiet.accountId}`)).body.limited).toBe(true)

    const disabled = await stack.createUser()
    const token = await stack.userToken('read', disabled)
    await act(disabled.accountId, 'disable').expect(200)
    const res = await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(403)
    expect(res.body.error).toBe('Your login is currently disabled')

    await act(quiet.accountId, 'none').expect(200)
  })

  it('refuses unknown action types (422), actions on admins (403) and unknown accounts (404)', async () => {
    const u = await stack.createUser()
    const act = (id: string, body: object) =>
      stack.api().post(`/api/v1/admin/accounts/${id}/action`).set(bearer(adminToken)).send(body)
    for (const body of [{ type: 'obliterate' }, {}, { type: ['suspend'] }]) {
      const res = await act(u.accountId, body).expect(422)
      expect(res.body.error).toMatch(/Validation failed/)
    }
    const otherAdmin = await stack.createUser({ role: 'admin' })
    await act(otherAdmin.accountId, { type: 'suspend' }).expect(403)
    await act('987654321', { type: 'suspend' }).expect(404)
  })
})

describe('GET /api/v2/admin/accounts', () => {
  const v2 = (query: string) => stack.api().get(`/api/v2/admin/accounts${query}`).set(bearer(adminToken))
  const names = (body: { username: string }[]) => body.map((a) => a.username).sort()

  it('filters by origin, status, permissions, role_ids[], username, display_name and email, with Link', async () => {
    await stack.createUser({ username: 'v2_pending', approved: false })
    const mod = await stack.createUser({ username: 'v2_mod', role: 'moderator' })
    await stack.accounts.ctx.db('accounts').where({ id: mod.accountId }).update({ display_name: 'Moddy' })
    expect(names((await v2('?status=pending').expect(200)).body)).toContain('v2_pending')
    expect(names((await v2('?status=active&username=v2_').expect(200)).body)).toEqual(['v2_mod'])
    expect(names((await v2('?permissions=staff&username=v2').expect(200)).body)).toEqual(['v2_mod'])
    expect(names((await v2('?role_ids[]=1').expect(200)).body)).toEqual(['v2_mod'])
    expect(names((await v2('?display_name=mod').expect(200)).body)).toEqual(['v2_mod'])
    expect(names((await v2('?email=v2_pending@').expect(200)).body)).toEqual(['v2_pending'])
    expect((await v2('?origin=remote').expect(200)).body).toEqual([])
    expect((await v2('?ip=127.0.0.1').expect(200)).body).toEqual([])
    expect((await v2('?status=nope').expect(400)).body).toEqual({ error: 'Unknown status: nope' })
    expect((await v2('?origin=mars').expect(400)).body).toEqual({ error: 'Unknown origin: mars' })

    const page = await v2('?origin=local&limit=1').expect(200)
    expect(page.body).toHaveLength(1)
    expect(page.headers.link).toBe(
      `<${stack.url}/api/v2/admin/accounts?limit=1&max_id=${page.body[0].id}&origin=local>; rel="next", ` +
        `<${stack.url}/api/v2/admin/accounts?limit=1&min_id=${page.body[0].id}&origin=local>; rel="prev"`,
    )
    const user = await stack.createUser()
    await stack
      .api()
      .get('/api/v2/admin/accounts')
      .set(bearer(await stack.userToken('read', user)))
      .expect(403)
  })
})
