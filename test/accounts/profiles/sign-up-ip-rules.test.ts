import { startStack } from '../../stack'
import type { Stack } from '../../stack'

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

let names = 0
const newUser = () => {
  const username = `ipsignup${++names}`
  return { username, email: `${username}@example.test`, password: 'long enough secret', agreement: true }
}

// The gateway believes X-Forwarded-For from loopback, so each request can come from the address it names.
let stack: Stack
let appToken: string
let adminToken: string
beforeAll(async () => {
  stack = await startStack({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } })
  appToken = await stack.appToken('read write')
  adminToken = await stack.userToken('admin:read admin:write', await stack.createUser({ role: 'admin' }))
})
afterAll(() => stack.stop())

const signUpFrom = (ip: string, body = newUser()) =>
  stack.api().post('/api/v1/accounts').set('X-Forwarded-For', ip).set(bearer(appToken)).send(body)

const createBlock = (ip: string, severity: string) =>
  stack
    .api()
    .post('/api/v1/admin/ip_blocks')
    .set(bearer(adminToken))
    .send({ ip, severity, comment: 'sign-up test' })
    .expect(200)

const userOf = (email: string) => stack.accounts.ctx.db('users').where({ email }).first()

describe('POST /api/v1/accounts and IP rules (open registrations)', () => {
  it('sign_up_requires_approval: the account is created pending, elsewhere it is approved at once', async () => {
    await createBlock('203.0.113.0/24', 'sign_up_requires_approval')
    await createBlock('2001:db8:aaaa::/48', 'sign_up_requires_approval')

    const held = newUser()
    const res = await signUpFrom('203.0.113.77', held).expect(200)
    expect((await userOf(held.email)).approved).toBe(false)
    // The token is issued, but a pending login cannot use it (docs/mastodon-compatibility.md, "Accounts").
    const me = await stack
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set(bearer(res.body.access_token))
      .expect(403)
    expect(me.body).toEqual({ error: 'Your login is currently pending approval' })

    const heldV6 = newUser()
    await signUpFrom('2001:db8:aaaa:1::9', heldV6).expect(200)
    expect((await userOf(heldV6.email)).approved).toBe(false)

    const free = newUser()
    const ok = await signUpFrom('203.0.114.77', free).expect(200)
    expect((await userOf(free.email)).approved).toBe(true)
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(ok.body.access_token)).expect(200)

    // The pending account shows up for moderators to approve.
    const pending = await stack
      .api()
      .get('/api/v1/admin/accounts?status=pending')
      .set(bearer(adminToken))
      .expect(200)
    expect(pending.body.map((a: { username: string }) => a.username)).toEqual(
      expect.arrayContaining([held.username, heldV6.username]),
    )
  })

  it('sign_up_block and no_access: the service refuses with 403 even when the gateway does not know the rule', async () => {
    // Rows written straight to the table are never published to Redis: the gateway lets the request through,
    // so the 403 comes from the accounts service's own check.
    const db = stack.accounts.ctx.db
    await db('ip_blocks').insert([
      { ip: '198.51.100.0/25', severity: 'sign_up_block', comment: '' },
      { ip: '198.51.100.128/25', severity: 'no_access', comment: '' },
    ])
    for (const ip of ['198.51.100.5', '198.51.100.200']) {
      const body = newUser()
      const res = await signUpFrom(ip, body).expect(403)
      expect(res.body).toEqual({ error: 'Forbidden' })
      expect(await userOf(body.email)).toBeUndefined()
    }
    // Other routes from there still work: the gateway has no such rule.
    await stack.api().get('/api/v1/instance').set('X-Forwarded-For', '198.51.100.5').expect(200)
    await signUpFrom('198.51.101.5').expect(200)
  })

  it('the strongest rule wins when several cover the address', async () => {
    await createBlock('192.0.2.0/24', 'sign_up_requires_approval')
    await stack.accounts.ctx
      .db('ip_blocks')
      .insert({ ip: '192.0.2.16/28', severity: 'sign_up_block', comment: '' })
    expect((await signUpFrom('192.0.2.20').expect(403)).body).toEqual({ error: 'Forbidden' })
    const body = newUser()
    await signUpFrom('192.0.2.200', body).expect(200)
    expect((await userOf(body.email)).approved).toBe(false)
  })
})
