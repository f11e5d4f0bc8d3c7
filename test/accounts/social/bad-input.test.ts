import { startStack } from '../../stack'
import type { Stack } from '../../stack'
import { post, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
let me: TestUser
let other: TestUser
let status: string
beforeAll(async () => {
  stack = await startStack()
  me = await signUp(stack)
  other = await signUp(stack)
  status = await post(other, 'hello')
})
afterAll(() => stack.stop())

const expectError = (res: { status: number; body: unknown }, status: number) => {
  expect(res.status).toBe(status)
  expect(res.body).toEqual({ error: expect.any(String) })
}

describe('bad input answers 4xx with {"error"} on every route', () => {
  const UNKNOWN = '9000000000000000000'
  it.each([
    ['get', `/api/v1/statuses/${UNKNOWN}`],
    ['get', '/api/v1/statuses/abc'],
    ['delete', '/api/v1/statuses/abc'],
    ['post', `/api/v1/statuses/${UNKNOWN}/favourite`],
    ['post', '/api/v1/statuses/-1/unfavourite'],
    ['post', `/api/v1/statuses/${UNKNOWN}/reblog`],
    ['post', `/api/v1/statuses/${UNKNOWN}/unreblog`],
    ['post', '/api/v1/statuses/1e5/pin'],
    ['post', `/api/v1/statuses/${UNKNOWN}/unpin`],
    ['get', '/api/v1/accounts/99999999999999999999/statuses'],
    ['get', '/api/v1/accounts/x/statuses/media'],
    ['get', `/api/v1/accounts/${UNKNOWN}/followers`],
    ['get', '/api/v1/accounts/x/following'],
    ['post', `/api/v1/accounts/${UNKNOWN}/follow`],
    ['post', '/api/v1/accounts/x/unfollow'],
    ['post', `/api/v1/accounts/${UNKNOWN}/remove_from_followers`],
    ['post', `/api/v1/accounts/${UNKNOWN}/block`],
    ['post', '/api/v1/accounts/x/unblock'],
    ['post', `/api/v1/accounts/${UNKNOWN}/mute`],
    ['post', '/api/v1/accounts/x/unmute'],
    ['post', `/api/v1/follow_requests/${UNKNOWN}/authorize`],
    ['post', '/api/v1/follow_requests/x/reject'],
    ['get', `/api/v1/notifications/${UNKNOWN}`],
    ['post', '/api/v1/notifications/x/dismiss'],
  ] as const)('%s %s → 404', async (method, path) => {
    expectError(await me[method](path), 404)
  })

  it('wrong types and oversize strings', async () => {
    expectError(await me.post('/api/v1/statuses', { status: { nested: true } }), 400)
    expectError(await me.post('/api/v1/statuses', { status: 'x', sensitive: { a: 1 } }), 400)
    expectError(await me.post('/api/v1/statuses', { status: 'x', media_ids: [{}] }), 400)
    expectError(await me.post('/api/v1/statuses', { status: 'x', media_ids: ['abc'] }), 422)
    expectError(await me.post('/api/v1/statuses', { status: 'x', media_ids: ['1', '2', '3', '4', '5'] }), 422)
    expectError(await me.post('/api/v1/statuses', { status: 'x', in_reply_to_id: 'abc' }), 404)
    expectError(await me.post('/api/v1/statuses', { status: 'x', in_reply_to_id: ['1'] }), 400)
    expectError(await me.post('/api/v1/statuses', { status: 'x'.repeat(20_000) }), 422)
    expectError(await me.post('/api/v1/statuses', { status: 'x', language: 'x'.repeat(50) }), 422)
    expectError(await me.post('/api/v1/statuses', { status: 'x', visibility: 7 }), 422)
    expectError(await me.post('/api/v2/media', { description: 'no file' }), 400)
    expectError(await me.post(`/api/v1/statuses/${status}/reblog`, { visibility: 'direct' }), 422)
    expectError(await me.post(`/api/v1/accounts/${other.id}/follow`, { reblogs: ['x'] }), 400)
    expectError(await me.post(`/api/v1/accounts/${other.id}/follow`, { languages: [{ a: 1 }] }), 400)
    expectError(await me.post(`/api/v1/accounts/${other.id}/mute`, { duration: 1.5 }), 400)
    expectError(await me.post(`/api/v1/accounts/${other.id}/mute`, { notifications: { a: 1 } }), 400)
    expectError(await me.get('/api/v1/notifications?types[a]=1'), 400)
    expectError(await me.get(`/api/v1/accounts/${other.id}/statuses?tagged=${'x'.repeat(200)}`), 422)
    expectError(await me.get(`/api/v1/accounts/${other.id}/statuses?pinned[a]=1`), 400)
    expectError(await me.get('/api/v1/accounts/relationships?id[a]=1'), 400)
    // Odd paging values are ignored or give an empty page, never an error.
    const odd = await me.get(`/api/v1/accounts/${other.id}/statuses?limit=abc&max_id=zz`).expect(200)
    expect(odd.body).toEqual([])
  })

  it('malformed JSON → 400', async () => {
    const res = await stack
      .api()
      .post('/api/v1/statuses')
      .set('Authorization', `Bearer ${me.token}`)
      .set('Content-Type', 'application/json')
      .send('{"status": ')
    expectError(res, 400)
  })

  it('no token or an app token where a user is needed', async () => {
    expectError(await stack.api().post('/api/v1/statuses').send({ status: 'x' }), 401)
    const app = await stack.appToken('read write')
    const res = await stack.api().get('/api/v1/notifications').set('Authorization', `Bearer ${app}`)
    expectError(res, 422)
  })
})
