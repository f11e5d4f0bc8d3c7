import request from 'supertest'
import { loadGatewayConfig } from '../../apps/gateway/src/config'
import { createGateway } from '../../apps/gateway/src/service'
import { bearer, eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { atWindowStart, newIpv4, registerAppFrom, tokenFor } from './helpers'

// 6 s windows: a test's requests start in the first 40% of one (atWindowStart) and must not cross into the
// next, which a loaded machine made happen with 2 s windows.
const WINDOW_MS = 6000
const LIMITS = {
  RATE_LIMITS: 'on',
  TRUSTED_PROXIES: '127.0.0.1,::1',
  RATE_LIMIT_API_USER: '8/6',
  RATE_LIMIT_API_TOKEN: '5/6',
  RATE_LIMIT_API_IP: '6/6',
  RATE_LIMIT_SIGN_UPS: '2/6',
  RATE_LIMIT_APP_REGISTRATIONS: '3/6',
  RATE_LIMIT_FOLLOWS: '3/6',
  RATE_LIMIT_STATUSES: '3/6',
  RATE_LIMIT_MEDIA: '2/6',
}

let stack: Stack
let client: { client_id: string; client_secret: string }
beforeAll(async () => {
  stack = await startStack({ env: LIMITS })
  client = await registerAppFrom(stack, newIpv4(), 'read write follow')
})
afterAll(() => stack.stop())

async function newUserToken(scope = 'read write follow') {
  return tokenFor(stack, client, await stack.createUser(), scope)
}

function expectHeaders(res: request.Response, limit: number, remaining: number) {
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit))
  expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining))
  const reset = res.headers['x-ratelimit-reset'] as string
  expect(reset).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
  // The end of the current fixed window, aligned to the epoch as Rack::Attack's.
  expect(Date.parse(reset) % WINDOW_MS).toBe(0)
  // The window of the moment the request was counted, which may have ended by the time the answer is read.
  expect(Date.parse(reset)).toBeGreaterThan(Date.now() - WINDOW_MS)
  expect(Date.parse(reset)).toBeLessThanOrEqual(Date.now() + WINDOW_MS)
}

function expectThrottled(res: request.Response, limit: number) {
  expect(res.status).toBe(429)
  expect(res.body).toEqual({ error: 'Too many requests' })
  expect(res.headers['content-type']).toMatch(/^application\/json/)
  expectHeaders(res, limit, 0)
}

describe('rate limits, through the gateway', () => {
  it('app registrations per IP: the N+1th is 429 with the headers, other IPs are unaffected, the window resets', async () => {
    const ip = newIpv4()
    const register = (from: string) =>
      stack
        .api()
        .post('/api/v1/apps')
        .set('X-Forwarded-For', from)
        .send({ client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' })
    await atWindowStart(WINDOW_MS)
    for (const remaining of [2, 1, 0]) {
      const res = await register(ip).expect(200)
      expectHeaders(res, 3, remaining)
    }
    const refused = await register(ip)
    expectThrottled(refused, 3)
    expect((await register(newIpv4())).status).toBe(200)

    const reset = Date.parse(refused.headers['x-ratelimit-reset'] as string)
    await new Promise((resolve) => setTimeout(resolve, reset - Date.now() + 20))
    expectHeaders(await register(ip).expect(200), 3, 2)
  })

  it('groups IPv6 clients by /64', async () => {
    await atWindowStart(WINDOW_MS)
    const register = (from: string) =>
      stack
        .api()
        .post('/api/v1/apps')
        .set('X-Forwarded-For', from)
        .send({ client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' })
    await register('2001:db8:aa:1::1').expect(200)
    await register('2001:db8:aa:1:ffff::2').expect(200)
    await register('2001:db8:aa:1::3').expect(200)
    expectThrottled(await register('2001:db8:aa:1:8000::9'), 3)
    await register('2001:db8:aa:2::1').expect(200)
  })

  it('unauthenticated API requests per IP, including those with a bad token', async () => {
    const ip = newIpv4()
    await atWindowStart(WINDOW_MS)
    for (let i = 0; i < 3; i++) {
      const res = await stack.api().get('/api/v1/instance').set('X-Forwarded-For', ip)
      expect(res.status).not.toBe(429)
      expectHeaders(res, 6, 5 - i)
    }
    for (let i = 0; i < 3; i++) {
      const res = await stack
        .api()
        .get('/api/v1/apps/verify_credentials')
        .set('X-Forwarded-For', ip)
        .set(bearer('not-a-token'))
        .expect(401)
      expectHeaders(res, 6, 2 - i)
    }
    expectThrottled(await stack.api().get('/api/v1/instance').set('X-Forwarded-For', ip), 6)
  })

  it('a revoked token, or one outside the route’s scopes, is counted by IP like a request without a token', async () => {
    const user = await stack.createUser()
    const revoked = await tokenFor(stack, client, user, 'read')
    const narrow = await tokenFor(stack, client, user, 'write')
    await stack
      .api()
      .post('/oauth/revoke')
      .send({ ...client, token: revoked })
      .expect(200, {})
    const refused = (token: string, path: string, ip: string) =>
      stack.api().get(path).set('X-Forwarded-For', ip).set(bearer(token))
    // Refused from the moment revocation answered (each try from an address of its own, to spend no budget here).
    await eventually(
      async () => (await refused(revoked, '/api/v1/apps/verify_credentials', newIpv4())).status === 401,
    )
    const ip = newIpv4()
    await atWindowStart(WINDOW_MS)
    for (let i = 0; i < 3; i++)
      expectHeaders(await refused(revoked, '/api/v1/apps/verify_credentials', ip).expect(401), 6, 5 - i)
    for (let i = 0; i < 3; i++)
      expectHeaders(await refused(narrow, '/api/v1/accounts/verify_credentials', ip).expect(403), 6, 2 - i)
    expectThrottled(await refused(narrow, '/api/v1/accounts/verify_credentials', ip), 6)
  })

  it('authenticated API requests per token, and per user across their tokens (fewest remaining shown)', async () => {
    const user = await stack.createUser()
    const first = await tokenFor(stack, client, user, 'read')
    const second = await tokenFor(stack, client, user, 'read')
    const verify = (token: string) => stack.api().get('/api/v1/apps/verify_credentials').set(bearer(token))
    await atWindowStart(WINDOW_MS)
    for (const remaining of [4, 3, 2, 1, 0]) expectHeaders(await verify(first).expect(200), 5, remaining)
    expectThrottled(await verify(first), 5)
    // The user has spent 6 of 8: the second token has its own 5, but the user's 2 left are fewer.
    expectHeaders(await verify(second).expect(200), 8, 1)
    expectHeaders(await verify(second).expect(200), 8, 0)
    expectThrottled(await verify(second), 8)
    // Another user is not affected.
    expectHeaders(await verify(await newUserToken('read')).expect(200), 5, 4)
  })

  it('follows, statuses and media per user', async () => {
    const alice = await newUserToken()
    const bob = await newUserToken()
    await atWindowStart(WINDOW_MS)
    const follow = (token: string) => stack.api().post('/api/v1/accounts/1/follow').set(bearer(token))
    for (const remaining of [2, 1, 0]) {
      const res = await follow(alice)
      expect(res.status).not.toBe(429)
      expectHeaders(res, 3, remaining)
    }
    expectThrottled(await follow(alice), 3)
    expect((await follow(bob)).status).not.toBe(429)

    const post = (token: string) =>
      stack.api().post('/api/v1/statuses').set(bearer(token)).send({ status: 'hi' })
    for (let i = 0; i < 3; i++) expect((await post(bob)).status).not.toBe(429)
    expectThrottled(await post(bob), 3)
    expect((await post(alice)).status).not.toBe(429)

    const carol = await newUserToken()
    await atWindowStart(WINDOW_MS)
    // v1 and v2 uploads share one budget.
    expectHeaders(await stack.api().post('/api/v1/media').set(bearer(carol)), 2, 1)
    expectHeaders(await stack.api().post('/api/v2/media').set(bearer(carol)), 2, 0)
    expectThrottled(await stack.api().post('/api/v1/media').set(bearer(carol)), 2)
  })

  it('sign-ups per IP', async () => {
    const ip = newIpv4()
    const app = await registerAppFrom(stack, newIpv4(), 'write:accounts')
    const appToken = (
      await stack
        .api()
        .post('/oauth/token')
        .send({ grant_type: 'client_credentials', ...app, scope: 'write:accounts' })
        .expect(200)
    ).body.access_token as string
    const signUp = () =>
      stack.api().post('/api/v1/accounts').set('X-Forwarded-For', ip).set(bearer(appToken)).send({})
    await atWindowStart(WINDOW_MS)
    expectHeaders(await signUp(), 2, 1)
    expectHeaders(await signUp(), 2, 0)
    expectThrottled(await signUp(), 2)
  })

  it('two gateway instances share one budget through Redis', async () => {
    const second = await createGateway(
      loadGatewayConfig({ ...stack.env, ACCOUNTS_URL: stack.accountsUrl, PUSH_URL: stack.pushUrl }),
    )
    const port = await second.start(0)
    try {
      const ip = newIpv4()
      const gateways = [stack.api, () => request(`http://127.0.0.1:${port}`)]
      const register = (n: number) =>
        gateways[n % 2]!()
          .post('/api/v1/apps')
          .set('X-Forwarded-For', ip)
          .send({ client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' })
      await atWindowStart(WINDOW_MS)
      expectHeaders(await register(0).expect(200), 3, 2)
      expectHeaders(await register(1).expect(200), 3, 1)
      expectHeaders(await register(2).expect(200), 3, 0)
      expectThrottled(await register(3), 3)
      expectThrottled(await register(4), 3)
    } finally {
      await second.stop()
    }
  })

  it('RATE_LIMITS=off turns every limit off', async () => {
    const open = await createGateway(
      loadGatewayConfig({
        ...stack.env,
        RATE_LIMITS: 'off',
        ACCOUNTS_URL: stack.accountsUrl,
        PUSH_URL: stack.pushUrl,
      }),
    )
    const port = await open.start(0)
    try {
      const ip = newIpv4()
      for (let i = 0; i < 5; i++) {
        const res = await request(`http://127.0.0.1:${port}`)
          .post('/api/v1/apps')
          .set('X-Forwarded-For', ip)
          .send({ client_name: 'x', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' })
          .expect(200)
        expect(res.headers).not.toHaveProperty('x-ratelimit-limit')
      }
    } finally {
      await open.stop()
    }
  })
})
