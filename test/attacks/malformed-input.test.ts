import request from 'supertest'
import { ROUTES } from '@roost/routes'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { attackLog, expectRefused } from './helpers'

/** Findings 2 and 6: input that used to answer 500 is refused with a 4xx and `{"error": …}`. */
let stack: Stack
let token: string
let adminToken: string
const { attempt } = attackLog('malformed-input')
beforeAll(async () => {
  stack = await startStack()
  token = await stack.userToken('read write follow push')
  const admin = await stack.createUser({ username: 'admin', role: 'admin' })
  adminToken = await stack.userToken('read write admin:read admin:write', admin)
})
afterAll(() => stack.stop())

const withBody = ROUTES.filter((r) => r.method !== 'GET')
const concrete = (path: string) => path.replace(/:\w+/g, '1')

describe('a malformed multipart body (finding 2)', () => {
  const bodies = {
    garbage: { type: 'multipart/form-data', body: 'garbage' },
    'no boundary': { type: 'multipart/form-data; boundary=x', body: '\u0007\u00ff\u0000' },
    'a broken part header': { type: 'multipart/form-data; boundary=x', body: '--x\r\nbroken\r\n\r\n--x--' },
    'a form cut short': {
      type: 'multipart/form-data; boundary=x',
      body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n',
    },
  }

  it.each(withBody.map((r) => [`${r.method} ${r.path}`, r] as const))(
    'is a 400 on %s, with or without a token, through the gateway and straight to the service',
    async (_name, route) => {
      const services = {
        accounts: stack.accountsUrl,
        push: stack.pushUrl,
        streaming: stack.streamingUrl,
        gateway: stack.url,
      }
      for (const base of [stack.url, services[route.upstream]])
        for (const auth of [undefined, token])
          for (const { type, body } of Object.values(bodies)) {
            let req = request(base)[route.method.toLowerCase() as 'post'](concrete(route.path))
            if (auth) req = req.set(bearer(auth))
            const res = await attempt(req.set('Content-Type', type).send(body))
            // Routes that check the token first may refuse it first; nothing may answer 5xx.
            expectRefused(res)
          }
    },
  )

  it('is exactly 400 on the public token endpoint, as in the report', async () => {
    const res = await attempt(
      stack.api().post('/oauth/token').set('Content-Type', 'multipart/form-data').send('garbage'),
    )
    expectRefused(res, 400)
  })
})

describe('values that reached Postgres or a decoder unchecked (finding 6)', () => {
  it.each([
    '/api/v1/timelines/public',
    '/api/v1/notifications',
    '/api/v1/blocks',
    '/api/v1/mutes',
    '/api/v1/follow_requests',
    '/api/v1/admin/accounts',
    '/api/v1/admin/ip_blocks',
  ])('pagination ids beyond bigint on %s are ignored, not a 500', async (path) => {
    for (const key of ['max_id', 'since_id', 'min_id']) {
      const res = await attempt(stack.api().get(`${path}?${key}=9999999999999999999`).set(bearer(adminToken)))
      expect(res.status).toBe(200)
    }
  })

  it('refuses NUL bytes in search, status text, display name and exclude_types[] with a 400', async () => {
    const cases = [
      stack.api().get('/api/v2/search?q=%00').set(bearer(token)),
      stack.api().get('/api/v1/accounts/search?q=a%00').set(bearer(token)),
      stack.api().post('/api/v1/statuses').set(bearer(token)).send({ status: 'hi\u0000there' }),
      stack
        .api()
        .patch('/api/v1/accounts/update_credentials')
        .set(bearer(token))
        .field('display_name', 'a\u0000b'),
      stack
        .api()
        .patch('/api/v1/accounts/update_credentials')
        .set(bearer(token))
        .type('form')
        .send('note=%00'),
      stack.api().get('/api/v1/notifications?exclude_types[]=%00').set(bearer(token)),
    ]
    for (const req of cases) expectRefused(await attempt(req), 400)
  })

  it('refuses HTTP Basic client credentials with bad percent-encoding as an unknown client', async () => {
    const basic = `Basic ${Buffer.from('%ZZ:x').toString('base64')}`
    const token = await attempt(
      stack.api().post('/oauth/token').set('Authorization', basic).send({ grant_type: 'client_credentials' }),
    )
    expectRefused(token, 401)
    expect(token.body.error).toBe('invalid_client')
    const revoke = await attempt(
      stack.api().post('/oauth/revoke').set('Authorization', basic).send({ token: 'x' }),
    )
    expectRefused(revoke, 403)
  })

  it('reads a malformed session cookie on /oauth/authorize as no session', async () => {
    const app = await stack.registerApp('read')
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
    })
    for (const cookie of ['roost_session=%E0%A4%A', 'roost_session=é.é.é', 'roost_session=%']) {
      const page = await attempt(stack.api().get(`/oauth/authorize?${query}`).set('Cookie', cookie))
      expect(page.status).toBe(200)
      expect(page.text).toContain('Sign in')
      const post = await attempt(
        stack
          .api()
          .post('/oauth/authorize')
          .set('Cookie', cookie)
          .type('form')
          .send(`${query}&action=approve&csrf_token=%E0`),
      )
      expect(post.status).toBe(403)
    }
  })

  it('answers a header block too large for node with {"error"} too', async () => {
    const res = await attempt(stack.api().get(`/api/v1/instance?q=${'a'.repeat(20_000)}`))
    expectRefused(res, 431)
  })
})
