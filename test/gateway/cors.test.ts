import type request from 'supertest'
import { ROUTES } from '@roost/routes'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'

let stack: Stack
beforeAll(async () => {
  stack = await startStack({ env: { RATE_LIMITS: 'on', RATE_LIMIT_API_IP: '1000/300' } })
})
afterAll(() => stack.stop())

const EXPOSED = 'Link,X-RateLimit-Reset,X-RateLimit-Limit,X-RateLimit-Remaining,X-Request-Id'
const concrete = (path: string) => path.replace(/:\w+/g, '1')

describe('CORS, as Mastodon sends it (rack-cors)', () => {
  it('every /api/* answer carries it, errors included: each table route without a token, unknown paths, a 413', async () => {
    const answers: string[] = []
    const check = async (method: string, path: string, res: request.Response) => {
      if (
        res.headers['access-control-allow-origin'] !== '*' ||
        res.headers['access-control-expose-headers'] !== EXPOSED
      )
        answers.push(`${method} ${path} → ${res.status} without CORS headers`)
    }
    for (const route of ROUTES.filter((r) => r.path.startsWith('/api/'))) {
      const path = concrete(route.path)
      const method = route.method.toLowerCase() as 'get'
      const res = await stack.api()[method](path).set('Origin', 'https://client.example')
      await check(route.method, path, res)
    }
    const unknown = await stack
      .api()
      .get('/api/v1/no_such_thing')
      .set('Origin', 'https://client.example')
      .expect(404)
    await check('GET', '/api/v1/no_such_thing', unknown)
    const token = await stack.userToken()
    const tooBig = await stack
      .api()
      .post('/api/v1/statuses')
      .set(bearer(token))
      .set('Origin', 'https://client.example')
      .send({ status: 'x'.repeat(200_000) })
      .expect(413)
    await check('POST', '/api/v1/statuses (too big)', tooBig)
    expect(answers).toEqual([])
  })

  it('answers preflights with the methods and headers clients send', async () => {
    for (const path of ['/api/v1/statuses', '/oauth/token', '/oauth/revoke', '/api/v1/push/subscription']) {
      const res = await stack
        .api()
        .options(path)
        .set('Origin', 'https://client.example')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization,content-type,idempotency-key')
      expect(res.status).toBe(204)
      expect(res.headers['access-control-allow-origin']).toBe('*')
      expect(res.headers['access-control-allow-methods']).toBe('GET,POST,PUT,PATCH,DELETE,OPTIONS')
      expect(res.headers['access-control-allow-headers']).toBe('Authorization,Content-Type,Idempotency-Key')
      expect(res.headers['access-control-allow-credentials']).toBeUndefined()
    }
  })

  it('covers the token endpoints, discovery documents and media, but not the sign-in pages or Bull Board', async () => {
    const origin = { Origin: 'https://client.example' }
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/host-meta',
      '/avatars/original/missing.png',
      '/headers/original/missing.png',
      '/media/missing.png',
    ]) {
      const res = await stack.api().get(path).set(origin)
      expect([path, res.headers['access-control-allow-origin']]).toEqual([path, '*'])
    }
    const token = await stack.api().post('/oauth/token').set(origin).send({ grant_type: 'password' })
    expect(token.headers['access-control-allow-origin']).toBe('*')
    for (const path of ['/oauth/authorize', '/admin/queues', '/admin/queues/login']) {
      const res = await stack.api().get(path).set(origin)
      expect([path, res.headers['access-control-allow-origin']]).toEqual([path, undefined])
    }
  })
})

describe('default images and host-meta', () => {
  it('serves real PNGs at the default avatar and header URLs', async () => {
    for (const [path, width, height] of [
      ['/avatars/original/missing.png', 400, 400],
      ['/headers/original/missing.png', 1500, 500],
    ] as const) {
      const res = await stack.api().get(path).buffer(true).expect(200)
      expect(res.headers['content-type']).toBe('image/png')
      const png = res.body as Buffer
      expect(png.subarray(0, 8)).toEqual(Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'))
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([width, height])
    }
  })

  it('GET /.well-known/host-meta points at WebFinger', async () => {
    const res = await stack.api().get('/.well-known/host-meta').expect(200)
    expect(res.headers['content-type']).toBe('application/xrd+xml; charset=utf-8')
    expect(res.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n' +
        `  <Link rel="lrdd" template="${stack.url}/.well-known/webfinger?resource={uri}"/>\n` +
        '</XRD>\n',
    )
  })
})
