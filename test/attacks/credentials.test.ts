import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { hiddenFields, visitorCookie } from '../oauth/code-flow'
import { attackLog, expectRefused } from './helpers'

// Findings 5 and 10 of issue #9: no throttle on credential guessing (733 wrong client secrets/s, 20 wrong
// passwords/s, never a 429), and a sign-in form CSRF token that was the same for every visitor.
const log = attackLog('credentials')
let stack: Stack
beforeAll(async () => {
  stack = await startStack({
    env: {
      TRUSTED_PROXIES: '127.0.0.1,::1', // each test speaks from addresses of its own, through X-Forwarded-For
      RATE_LIMITS: 'on',
      RATE_LIMIT_SIGN_IN_IP: '8/300',
      RATE_LIMIT_SIGN_IN_ACCOUNT: '5/3600',
      RATE_LIMIT_APP_REGISTRATIONS: '1000/600',
    },
  })
})
afterAll(() => stack.stop())

let addresses = 0
const newAddress = () => `198.51.100.${++addresses}`

const tokenRequest = (from: string, body: Record<string, string>) =>
  log.attempt(stack.api().post('/oauth/token').set('X-Forwarded-For', from).type('form').send(body))

function expectThrottled(res: Awaited<ReturnType<typeof tokenRequest>>) {
  expectRefused(res, 429)
  expect(res.body).toEqual({ error: 'Too many requests' })
  expect(res.headers['x-ratelimit-remaining']).toBe('0')
  expect(res.headers['x-ratelimit-reset']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
}

describe('credential guessing is throttled (RATE_LIMIT_SIGN_IN_*)', () => {
  it('wrong client secrets: 8 per address, then 429 for that address only, even with a right secret', async () => {
    const from = newAddress()
    for (let i = 0; i < 8; i++) {
      const app = await stack.registerApp('read')
      const res = await tokenRequest(from, {
        grant_type: 'client_credentials',
        client_id: app.client_id,
        client_secret: 'not the secret',
      })
      expectRefused(res, 401)
      expect(res.body.error).toBe('invalid_client')
      // The tightest budget shows: the address's (8, counting down) once below the fresh client's 5.
      expect(res.headers['x-ratelimit-remaining']).toBe(String(Math.min(7 - i, 4)))
      expect(res.headers['x-ratelimit-limit']).toBe(7 - i <= 4 ? '8' : '5') // on a tie, the address's
    }
    const app = await stack.registerApp('read')
    const right = {
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
    }
    expectThrottled(await tokenRequest(from, right))
    expect((await tokenRequest(newAddress(), right)).status).toBe(200)
  })

  it('IPv6 addresses count by their /64: 8 wrong secrets from 8 addresses of one /64, then 429 for all of it', async () => {
    const prefix = `2001:db8:${(++addresses).toString(16)}:1`
    for (let i = 0; i < 8; i++) {
      const app = await stack.registerApp('read')
      const res = await tokenRequest(`${prefix}::${(i + 1).toString(16)}`, {
        grant_type: 'client_credentials',
        client_id: app.client_id,
        client_secret: 'not the secret',
      })
      expectRefused(res, 401)
    }
    const app = await stack.registerApp('read')
    const right = {
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
    }
    // Another address of the same /64 (another spelling too) is the same subject; the neighbouring /64 is not.
    expectThrottled(await tokenRequest(`${prefix}:ffff:ffff:ffff:ffff`, right))
    expectThrottled(await tokenRequest(`${prefix.toUpperCase()}:0:0:0:abcd`, right))
    expect((await tokenRequest(`${prefix.replace(/:1$/, ':2')}::1`, right)).status).toBe(200)
  })

  it('wrong passwords for one account from many addresses: 5, then 429 for that account only', async () => {
    const user = await stack.createUser()
    const other = await stack.createUser()
    const app = await stack.registerApp('read')
    const grant = (who: { email: string }, password: string, from = newAddress()) =>
      tokenRequest(from, {
        grant_type: 'password',
        client_id: app.client_id,
        client_secret: app.client_secret,
        username: who.email,
        password,
        scope: 'read',
      })
    for (let i = 0; i < 5; i++) {
      const res = await grant(user, `guess ${i}`)
      expectRefused(res, 400)
      expect(res.body.error).toBe('invalid_grant')
    }
    // The right password no longer helps, from anywhere, and the upper-case spelling is the same account.
    expectThrottled(await grant(user, user.password))
    expectThrottled(await grant({ email: user.email.toUpperCase() }, user.password))
    expect((await grant(other, other.password)).status).toBe(200)
  })

  it('wrong client secrets on /oauth/revoke count too', async () => {
    const app = await stack.registerApp('read')
    const token = await stack.appToken('read', app)
    const revoke = (secret: string) =>
      log.attempt(
        stack
          .api()
          .post('/oauth/revoke')
          .set('X-Forwarded-For', newAddress())
          .type('form')
          .send({ client_id: app.client_id, client_secret: secret, token }),
      )
    for (let i = 0; i < 5; i++) expectRefused(await revoke('wrong'), 403)
    expectThrottled(await revoke(app.client_secret))
    await stack.api().get('/api/v1/apps/verify_credentials').set(bearer(token)).expect(200)
  })

  it('the sign-in page: 8 wrong passwords from an address, then a 429 page', async () => {
    const user = await stack.createUser()
    const app = await stack.registerApp('read', 'urn:ietf:wg:oauth:2.0:oob')
    const from = newAddress()
    const query = {
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
    }
    const page = await stack
      .api()
      .get('/oauth/authorize')
      .set('X-Forwarded-For', from)
      .query(query)
      .expect(200)
    const signIn = (password: string) =>
      log.attempt(
        stack
          .api()
          .post('/oauth/authorize')
          .set('X-Forwarded-For', from)
          .set('Cookie', visitorCookie(page))
          .type('form')
          .send({ ...hiddenFields(page.text), email: `nobody${Math.random()}@example.test`, password }),
      )
    for (let i = 0; i < 8; i++) expect((await signIn('wrong')).status).toBe(401)
    const refused = await signIn(user.password)
    expect(refused.status).toBe(429)
    expect(refused.text).toContain('Too many failed sign-in attempts')
    expect(refused.headers['x-ratelimit-remaining']).toBe('0')
  })
})

describe('login CSRF: the sign-in form is bound to its visitor (finding 10)', () => {
  it("another site cannot post the attacker's own form into the victim's browser", async () => {
    const attacker = await stack.createUser()
    const app = await stack.registerApp('read', 'urn:ietf:wg:oauth:2.0:oob')
    const query = {
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
    }
    // The attacker loads the form and keeps its token; the victim's browser has another visitor id, or none.
    const attackersPage = await stack.api().get('/oauth/authorize').query(query).expect(200)
    const victimsPage = await stack.api().get('/oauth/authorize').query(query).expect(200)
    expect(hiddenFields(attackersPage.text).csrf_token).not.toBe(hiddenFields(victimsPage.text).csrf_token)
    for (const cookie of [visitorCookie(victimsPage), '']) {
      const res = await log.attempt(
        stack
          .api()
          .post('/oauth/authorize')
          .set('Cookie', cookie)
          .type('form')
          .send({ ...hiddenFields(attackersPage.text), email: attacker.email, password: attacker.password }),
      )
      expect(res.status).toBe(403)
      expect(String(res.headers['set-cookie'] ?? '')).not.toContain('roost_session=')
    }
    // The control: the attacker's form with the attacker's own cookie signs in.
    await stack
      .api()
      .post('/oauth/authorize')
      .set('Cookie', visitorCookie(attackersPage))
      .type('form')
      .send({ ...hiddenFields(attackersPage.text), email: attacker.email, password: attacker.password })
      .expect(303)
  })
})
