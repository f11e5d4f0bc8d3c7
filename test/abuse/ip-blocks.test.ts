import request from 'supertest'
import { ipSignUpSeverity } from '../../apps/accounts/src/ip_blocks/rules'
import { loadGatewayConfig } from '../../apps/gateway/src/config'
import { createGateway } from '../../apps/gateway/src/service'
import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { registerAppFrom, tokenFor } from './helpers'

let stack: Stack
let admin: string
let untrusted: Awaited<ReturnType<typeof createGateway>>
let untrustedApi: () => ReturnType<typeof request>
beforeAll(async () => {
  stack = await startStack({ env: { TRUSTED_PROXIES: '127.0.0.1,::1', RATE_LIMITS: 'off' } })
  const client = await registerAppFrom(stack, '192.0.2.250', 'read write admin:read admin:write')
  admin = await tokenFor(stack, client, await stack.createUser({ role: 'admin' }), 'admin:read admin:write')
  // A second gateway that trusts no proxy: X-Forwarded-For means nothing to it.
  untrusted = await createGateway(
    loadGatewayConfig({
      ...stack.env,
      TRUSTED_PROXIES: '',
      ACCOUNTS_URL: stack.accountsUrl,
      PUSH_URL: stack.pushUrl,
    }),
  )
  const port = await untrusted.start(0)
  untrustedApi = () => request(`http://127.0.0.1:${port}`)
})
afterAll(async () => {
  await untrusted.stop()
  await stack.stop()
})

const asAdmin = (req: request.Test) => req.set('Authorization', `Bearer ${admin}`)
const createBlock = async (body: Record<string, unknown>) =>
  (await asAdmin(stack.api().post('/api/v1/admin/ip_blocks')).send(body).expect(200)).body as {
    id: string
    ip: string
  }
const instanceFrom = (ip: string) => stack.api().get('/api/v1/instance').set('X-Forwarded-For', ip)
const isDenied = async (res: request.Test) => {
  const r = await res
  return r.status === 403 && r.body.error === 'Forbidden'
}

describe('IP blocks admin API', () => {
  it('creates, shows, lists, updates and deletes blocks (Admin::IpBlock entity)', async () => {
    const created = await asAdmin(stack.api().post('/api/v1/admin/ip_blocks'))
      .send({
        ip: '10.20.30.40/16',
        severity: 'sign_up_requires_approval',
        comment: 'spam wave',
        expires_in: 3600,
      })
      .expect(200)
    expect(created.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      ip: '10.20.0.0/16',
      severity: 'sign_up_requires_approval',
      comment: 'spam wave',
      created_at: expect.stringMatching(/Z$/),
      expires_at: expect.stringMatching(/Z$/),
    })
    const expiresIn = Date.parse(created.body.expires_at) - Date.now()
    expect(expiresIn).toBeGreaterThan(3590_000)
    expect(expiresIn).toBeLessThanOrEqual(3600_000)
    const single = await createBlock({ ip: '2001:db8:77::5', severity: 'sign_up_block' })
    expect(single.ip).toBe('2001:db8:77::5/128')

    const shown = await asAdmin(stack.api().get(`/api/v1/admin/ip_blocks/${created.body.id}`)).expect(200)
    expect(shown.body).toEqual(created.body)

    const listed = await asAdmin(stack.api().get('/api/v1/admin/ip_blocks?limit=1')).expect(200)
    expect(listed.body.map((b: { id: string }) => b.id)).toEqual([single.id])
    expect(listed.headers.link).toContain(`max_id=${single.id}`)
    const next = await asAdmin(stack.api().get(`/api/v1/admin/ip_blocks?limit=1&max_id=${single.id}`)).expect(
      200,
    )
    expect(next.body.map((b: { id: string }) => b.id)).toEqual([created.body.id])

    const updated = await asAdmin(stack.api().put(`/api/v1/admin/ip_blocks/${created.body.id}`))
      .send({ severity: 'no_access', comment: 'worse', expires_in: '' })
      .expect(200)
    expect(updated.body).toMatchObject({
      ip: '10.20.0.0/16',
      severity: 'no_access',
      comment: 'worse',
      expires_at: null,
    })

    await asAdmin(stack.api().delete(`/api/v1/admin/ip_blocks/${created.body.id}`)).expect(200, {})
    await asAdmin(stack.api().get(`/api/v1/admin/ip_blocks/${created.body.id}`)).expect(404, {
      error: 'Record not found',
    })
    await asAdmin(stack.api().delete(`/api/v1/admin/ip_blocks/${single.id}`)).expect(200)
  })

  it('validates with 422', async () => {
    const post = (body: Record<string, unknown>) =>
      asAdmin(stack.api().post('/api/v1/admin/ip_blocks')).send(body)
    expect((await post({ severity: 'no_access' }).expect(422)).body.error).toBe(
      "Validation failed: Ip can't be blank",
    )
    expect((await post({ ip: '10.0.0.300', severity: 'no_access' }).expect(422)).body.error).toBe(
      'Validation failed: Ip is invalid',
    )
    expect((await post({ ip: '10.0.0.0/33', severity: 'no_access' }).expect(422)).body.error).toBe(
      'Validation failed: Ip is invalid',
    )
    expect((await post({ ip: '10.0.0.0/8' }).expect(422)).body.error).toBe(
      "Validation failed: Severity can't be blank",
    )
    expect((await post({ ip: '10.0.0.0/8', severity: 'silence' }).expect(422)).body.error).toBe(
      'Validation failed: Severity is not included in the list',
    )
    expect(
      (await post({ ip: '10.0.0.0/8', severity: 'no_access', expires_in: 'soon' }).expect(422)).body.error,
    ).toMatch(/^Validation failed: Expires in/)
    const block = await createBlock({ ip: '10.9.0.0/16', severity: 'sign_up_block' })
    expect((await post({ ip: '10.9.1.1/16', severity: 'no_access' }).expect(422)).body.error).toBe(
      'Validation failed: Ip has already been taken',
    )
    await asAdmin(stack.api().delete(`/api/v1/admin/ip_blocks/${block.id}`)).expect(200)
  })

  it('needs an admin user and the admin scopes', async () => {
    const client = await registerAppFrom(stack, '192.0.2.251', 'read write admin:read admin:write')
    // A non-admin cannot even hold admin scopes (see test/oauth/admin-scopes.test.ts); an app token can, but the
    // admin API needs a user.
    const denied = await stack
      .api()
      .post('/oauth/token')
      .send({
        grant_type: 'password',
        ...client,
        username: (await stack.createUser()).email,
        password: 'correct horse battery',
        scope: 'admin:read',
      })
      .expect(400)
    expect(denied.body.error).toBe('invalid_scope')
    const appToken = await stack.appToken('admin:read', client)
    const res = await stack
      .api()
      .get('/api/v1/admin/ip_blocks')
      .set('Authorization', `Bearer ${appToken}`)
      .expect(422)
    expect(res.body).toEqual({ error: 'This method requires an authenticated user' })
    const adminUser = await stack.createUser({ role: 'admin' })
    const readOnly = await tokenFor(stack, client, adminUser, 'read')
    const scoped = await stack.api().get('/api/v1/admin/ip_blocks').set('Authorization', `Bearer ${readOnly}`)
    expect(scoped.status).toBe(403)
    expect(scoped.body.error).toBe('This action is outside the authorized scopes')
  })
})

describe('IP rules enforced by the gateway', () => {
  it('no_access refuses every request from an IPv4 range, and stops when the block is deleted', async () => {
    const block = await createBlock({ ip: '203.0.113.0/24', severity: 'no_access' })
    await eventually(() => isDenied(instanceFrom('203.0.113.9')))
    const res = await instanceFrom('203.0.113.200')
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ error: 'Forbidden' })
    expect(await isDenied(instanceFrom('203.0.114.1'))).toBe(false)
    await asAdmin(stack.api().delete(`/api/v1/admin/ip_blocks/${block.id}`)).expect(200)
    await eventually(async () => !(await isDenied(instanceFrom('203.0.113.9'))))
  })

  it('no_access on an IPv6 range', async () => {
    await createBlock({ ip: '2001:db8:dead::/48', severity: 'no_access' })
    await eventually(() => isDenied(instanceFrom('2001:db8:dead:beef::1')))
    expect(await isDenied(instanceFrom('2001:db8:beef::1'))).toBe(false)
  })

  it('an expired block no longer applies', async () => {
    await createBlock({ ip: '192.0.2.0/28', severity: 'no_access', expires_in: 2 })
    await eventually(() => isDenied(instanceFrom('192.0.2.3')))
    await eventually(async () => !(await isDenied(instanceFrom('192.0.2.3'))), 30_000)
  })

  it('sign_up_block refuses sign-up with 403 at the gateway, other routes still work', async () => {
    await createBlock({ ip: '198.51.100.64/26', severity: 'sign_up_block' })
    const app = await registerAppFrom(stack, '192.0.2.252', 'write:accounts')
    const token = (
      await stack
        .api()
        .post('/oauth/token')
        .send({ grant_type: 'client_credentials', ...app, scope: 'write:accounts' })
        .expect(200)
    ).body.access_token as string
    const signUpFrom = (ip: string) =>
      stack
        .api()
        .post('/api/v1/accounts')
        .set('X-Forwarded-For', ip)
        .set('Authorization', `Bearer ${token}`)
        .send({
          username: 'blocked',
          email: 'blocked@example.test',
          password: 'secret secret',
          agreement: true,
        })
    await eventually(() => isDenied(signUpFrom('198.51.100.70')))
    expect(await isDenied(signUpFrom('198.51.100.1'))).toBe(false)
    expect(await isDenied(instanceFrom('198.51.100.70'))).toBe(false)
    // The token is checked first, as in Mastodon.
    await stack.api().post('/api/v1/accounts').set('X-Forwarded-For', '198.51.100.70').send({}).expect(401)
  })

  it('ipSignUpSeverity gives the strongest active rule, for sign-up to apply', async () => {
    const ctx = stack.accounts.ctx
    await createBlock({ ip: '100.64.0.0/16', severity: 'sign_up_requires_approval' })
    await createBlock({ ip: '100.64.7.0/24', severity: 'sign_up_block' })
    await createBlock({ ip: '2001:db8:1234::/48', severity: 'sign_up_requires_approval' })
    expect(await ipSignUpSeverity(ctx, '100.64.1.1')).toBe('sign_up_requires_approval')
    expect(await ipSignUpSeverity(ctx, '100.64.7.7')).toBe('sign_up_block')
    expect(await ipSignUpSeverity(ctx, '2001:db8:1234:5::1')).toBe('sign_up_requires_approval')
    expect(await ipSignUpSeverity(ctx, '100.65.0.1')).toBeUndefined()
    expect(await ipSignUpSeverity(ctx, 'not an address')).toBeUndefined()
    const expired = await createBlock({
      ip: '100.66.0.0/16',
      severity: 'sign_up_requires_approval',
      expires_in: 60,
    })
    expect(await ipSignUpSeverity(ctx, '100.66.0.1')).toBe('sign_up_requires_approval')
    await ctx
      .db('ip_blocks')
      .where({ id: expired.id })
      .update({ expires_at: new Date(Date.now() - 1000) })
    expect(await ipSignUpSeverity(ctx, '100.66.0.1')).toBeUndefined()
  })

  it('ignores X-Forwarded-For from an untrusted peer, both ways', async () => {
    await createBlock({ ip: '198.51.100.128/25', severity: 'no_access' })
    await eventually(() => isDenied(instanceFrom('198.51.100.129')))
    // The trusted gateway believes the loopback proxy; the untrusted one sees only the peer, 127.0.0.1.
    const spoofed = await untrustedApi().get('/api/v1/instance').set('X-Forwarded-For', '198.51.100.129')
    expect(spoofed.status).not.toBe(403)

    // Block the loopback peer itself: a forged X-Forwarded-For does not get it through the untrusted gateway.
    const loopback = await createBlock({ ip: '127.0.0.1/32', severity: 'no_access' })
    try {
      await eventually(() => isDenied(untrustedApi().get('/api/v1/instance')))
      expect(await isDenied(untrustedApi().get('/api/v1/instance').set('X-Forwarded-For', '8.8.8.8'))).toBe(
        true,
      )
      // Through a trusted proxy, the forwarded address is what counts.
      expect(await isDenied(instanceFrom('8.8.8.8'))).toBe(false)
    } finally {
      // Straight to the accounts service: every gateway now refuses this test's own address.
      await request(stack.accountsUrl)
        .delete(`/api/v1/admin/ip_blocks/${loopback.id}`)
        .set('Authorization', `Bearer ${admin}`)
        .expect(200)
    }
  })
})
