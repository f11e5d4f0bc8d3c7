import type { Test } from 'supertest'
import { createSubscriberKeys } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const PATH = '/api/v1/push/subscription'

/** A subscription body with fresh, valid keys. */
function subscription(endpoint = `https://push.example.test/${Math.random().toString(36).slice(2)}`) {
  const keys = createSubscriberKeys()
  return { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } }
}

/** Sends a body as Rails-style bracket form or as JSON: both must behave the same. */
const FORMS = ['form', 'json'] as const
type Form = (typeof FORMS)[number]

function send(req: Test, form: Form, body: Record<string, unknown>) {
  if (form === 'json') return req.send(body)
  return req.type('form').send(toBrackets(body))
}

function toBrackets(value: unknown, prefix = ''): string {
  if (value !== null && typeof value === 'object')
    return Object.entries(value)
      .map(([k, v]) => toBrackets(v, prefix ? `${prefix}[${k}]` : k))
      .join('&')
  return `${encodeURIComponent(prefix)}=${encodeURIComponent(String(value))}`
}

describe.each(FORMS)('push subscription API (%s bodies)', (form) => {
  let token: string
  let userId: string
  beforeEach(async () => {
    const user = await stack.createUser()
    userId = user.userId
    token = await stack.userToken('push', user)
  })
  const post = (body: Record<string, unknown>) =>
    send(stack.api().post(PATH).set('Authorization', `Bearer ${token}`), form, body)
  const put = (body: Record<string, unknown>) =>
    send(stack.api().put(PATH).set('Authorization', `Bearer ${token}`), form, body)

  it('saves the subscription for the token owner and returns WebPushSubscription', async () => {
    const sub = subscription()
    const res = await post({ subscription: { ...sub, standard: '1' } }).expect(200)
    expect(res.body).toEqual({
      id: expect.any(Number),
      endpoint: sub.endpoint,
      standard: true,
      alerts: {},
      server_key: stack.env.VAPID_PUBLIC_KEY,
      policy: 'all',
    })
    const [row] = await stack.push.db('subscriptions').where('endpoint', sub.endpoint)
    expect(row).toMatchObject({
      user_id: userId,
      key_p256dh: sub.keys.p256dh,
      key_auth: sub.keys.auth,
      standard: true,
      access_token: token,
    })
    expect(Number(row.id)).toBe(res.body.id)
  })

  it('stores standard=0 as a legacy subscription and, as Mastodon, defaults to legacy', async () => {
    const legacy = await post({ subscription: { ...subscription(), standard: '0' } }).expect(200)
    expect(legacy.body.standard).toBe(false)
    const unsaid = await post({ subscription: subscription() }).expect(200)
    expect(unsaid.body.standard).toBe(false)
  })

  it('replaces the token subscription: two identical POSTs leave one row', async () => {
    const sub = subscription()
    await post({ subscription: sub }).expect(200)
    await post({ subscription: sub }).expect(200)
    expect(await stack.push.db('subscriptions').where('endpoint', sub.endpoint)).toHaveLength(1)
    expect(await stack.push.db('subscriptions').where('user_id', userId)).toHaveLength(1)
  })

  it('reads data[alerts], data[policy] and a top-level policy', async () => {
    const res = await post({
      subscription: subscription(),
      data: {
        alerts: { follow: 'true', mention: 'false', favourite: '1', bogus: 'true' },
        policy: 'followed',
      },
    }).expect(200)
    expect(res.body.alerts).toEqual({ follow: true, mention: false, favourite: true })
    expect(res.body.policy).toBe('followed')
    const topLevel = await post({ subscription: subscription(), policy: 'follower' }).expect(200)
    expect(topLevel.body.policy).toBe('follower')
  })

  type Sub = ReturnType<typeof subscription>
  const withKeys = (keys: Partial<Sub['keys']>) => (sub: Sub) => ({ ...sub, keys: { ...sub.keys, ...keys } })
  it.each([
    ['an app:// endpoint', (sub: Sub) => ({ ...sub, endpoint: 'app://example.foo' }), 'Endpoint is invalid'],
    [
      'a p256dh that is base64 but not a point',
      withKeys({ p256dh: Buffer.alloc(65, 4).toString('base64') }),
      'p256dh',
    ],
    ['a p256dh that is not base64', withKeys({ p256dh: 'not base64' }), 'p256dh'],
    ['an auth secret of the wrong length', withKeys({ auth: Buffer.alloc(8).toString('base64') }), 'auth'],
    ['no keys at all', ({ endpoint }: Sub) => ({ endpoint }), "can't be blank"],
  ])('refuses %s with 422 and stores nothing', async (_what, spoil, message) => {
    const res = await post({ subscription: spoil(subscription()) }).expect(422)
    expect(res.body.error).toMatch(/^Validation failed: /)
    expect(res.body.error).toContain(message)
    expect(await stack.push.db('subscriptions').where('user_id', userId)).toHaveLength(0)
  })

  it('accepts keys in padded base64 as well as base64url', async () => {
    const keys = createSubscriberKeys()
    const padded = (b64url: string) => Buffer.from(b64url, 'base64url').toString('base64')
    const res = await post({
      subscription: {
        endpoint: 'https://push.example.test/padded',
        keys: { p256dh: padded(keys.p256dh), auth: padded(keys.auth) },
      },
    }).expect(200)
    const [row] = await stack.push.db('subscriptions').where('id', res.body.id)
    expect(row.key_p256dh).toBe(keys.p256dh)
  })

  it('answers 400 when subscription is not an object, and 422 for an unknown policy', async () => {
    const res = await post({ subscription: 'invalid' }).expect(400)
    expect(res.body).toEqual({ error: 'param is missing or the value is empty or invalid: subscription' })
    const policy = await post({ subscription: subscription(), data: { policy: 'friends' } }).expect(422)
    expect(policy.body.error).toMatch(/^Validation failed: .*Policy/)
  })

  it('PUT replaces data wholesale; data=invalid is a 400', async () => {
    await post({ subscription: subscription(), data: { alerts: { status: 'true', poll: 'true' } } }).expect(
      200,
    )
    const alerts = {
      follow: true,
      follow_request: true,
      favourite: false,
      reblog: true,
      mention: false,
      poll: true,
      status: false,
    }
    const res = await put({ data: { policy: 'all', alerts } }).expect(200)
    expect(res.body).toMatchObject({ alerts, policy: 'all', endpoint: expect.any(String) })
    const narrower = await put({ data: { alerts: { mention: true } } }).expect(200)
    expect(narrower.body.alerts).toEqual({ mention: true })
    await put({ data: 'invalid' }).expect(400)
  })

  it('GET returns the subscription, and 404 Not Found without one; DELETE always answers {}', async () => {
    const none = await stack.api().get(PATH).set('Authorization', `Bearer ${token}`).expect(404)
    expect(none.body).toEqual({ error: 'Not Found' })
    expect(none.headers['content-type']).toMatch(/json/)
    await put({ data: { alerts: { mention: true } } }).expect(404)

    const sub = subscription()
    await post({ subscription: sub }).expect(200)
    const got = await stack.api().get(PATH).set('Authorization', `Bearer ${token}`).expect(200)
    expect(got.body.endpoint).toBe(sub.endpoint)

    expect((await stack.api().delete(PATH).set('Authorization', `Bearer ${token}`).expect(200)).body).toEqual(
      {},
    )
    expect(await stack.push.db('subscriptions').where('endpoint', sub.endpoint)).toHaveLength(0)
    expect((await stack.api().delete(PATH).set('Authorization', `Bearer ${token}`).expect(200)).body).toEqual(
      {},
    )
  })
})

describe('push subscription API: tokens and concurrency', () => {
  it('refuses app tokens and tokens without the push scope', async () => {
    const appToken = await stack.appToken('push')
    const res = await stack.api().get(PATH).set('Authorization', `Bearer ${appToken}`).expect(422)
    expect(res.body).toEqual({ error: 'This method requires an authenticated user' })
    const readOnly = await stack.userToken('read')
    await stack.api().get(PATH).set('Authorization', `Bearer ${readOnly}`).expect(403)
    await stack.api().get(PATH).expect(401)
  })

  it('a token only sees and changes its own subscription', async () => {
    const user = await stack.createUser()
    const first = await stack.userToken('push', user)
    const second = await stack.userToken('push', user)
    const sub = subscription()
    await stack
      .api()
      .post(PATH)
      .set('Authorization', `Bearer ${first}`)
      .send({ subscription: sub })
      .expect(200)
    await stack.api().get(PATH).set('Authorization', `Bearer ${second}`).expect(404)
    await stack.api().delete(PATH).set('Authorization', `Bearer ${second}`).expect(200)
    expect(await stack.push.db('subscriptions').where('endpoint', sub.endpoint)).toHaveLength(1)
  })
})
