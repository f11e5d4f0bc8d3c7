import { startStack } from '../stack'
import type { Stack } from '../stack'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

describe('apps and client credentials, through the gateway', () => {
  it('registers an app, issues an app token and verifies it', async () => {
    const app = await stack.registerApp('read write')
    expect(app).toMatchObject({ name: 'Roost tests', scopes: ['read', 'write'], client_secret_expires_at: 0 })
    expect(app.vapid_key).toBe(stack.env.VAPID_PUBLIC_KEY)

    const token = await stack
      .api()
      .post('/oauth/token')
      .type('form')
      .send({
        grant_type: 'client_credentials',
        client_id: app.client_id,
        client_secret: app.client_secret,
        scope: 'read write',
      })
      .expect(200)
    expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'read write' })
    expect(token.headers['cache-control']).toContain('no-store')

    const verified = await stack
      .api()
      .get('/api/v1/apps/verify_credentials')
      .set('Authorization', `Bearer ${token.body.access_token}`)
      .expect(200)
    expect(verified.body).toMatchObject({ id: app.id, name: 'Roost tests', scopes: ['read', 'write'] })
    expect(verified.body).not.toHaveProperty('client_secret')
  })

  it('refuses a wrong client secret with 401 invalid_client', async () => {
    const app = await stack.registerApp()
    const res = await stack
      .api()
      .post('/oauth/token')
      .send({ grant_type: 'client_credentials', client_id: app.client_id, client_secret: 'wrong' })
      .expect(401)
    expect(res.body.error).toBe('invalid_client')
    expect(res.body.error_description).toMatch(/Client authentication failed/)
  })
})
