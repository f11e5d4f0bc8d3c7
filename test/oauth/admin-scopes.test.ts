import { startStack } from '../stack'
import type { Stack } from '../stack'
import { authorize, redirectQuery } from './code-flow'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const CALLBACK = 'https://client.example/callback'
const INVALID_SCOPE = {
  error: 'invalid_scope',
  error_description: 'The requested scope is invalid, unknown, or malformed.',
}

async function passwordGrant(user: { email: string; password: string }, scope: string) {
  const app = await stack.registerApp('read write admin:read admin:write:accounts')
  return stack.api().post('/oauth/token').send({
    grant_type: 'password',
    client_id: app.client_id,
    client_secret: app.client_secret,
    username: user.email,
    password: user.password,
    scope,
  })
}

describe('admin scopes go to admins only', () => {
  it('password grant: 400 invalid_scope for a user or a moderator, granted to an admin', async () => {
    for (const role of ['user', 'moderator'] as const) {
      const user = await stack.createUser({ role })
      for (const scope of ['admin:read', 'read admin:write:accounts']) {
        const res = await passwordGrant(user, scope)
        expect({ role, scope, status: res.status, body: res.body }).toEqual({
          role,
          scope,
          status: 400,
          body: INVALID_SCOPE,
        })
      }
      expect((await passwordGrant(user, 'read write')).status).toBe(200)
    }
    const admin = await stack.createUser({ role: 'admin' })
    const res = await passwordGrant(admin, 'read admin:read admin:write:accounts')
    expect(res.status).toBe(200)
    expect(res.body.scope).toBe('read admin:read admin:write:accounts')
  })

  it('authorization: a user is sent back with error=invalid_scope, an admin gets a code', async () => {
    const app = await stack.registerApp('read admin:read', CALLBACK)
    const query = {
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: CALLBACK,
      scope: 'read admin:read',
      state: 's1',
    }
    const refused = await authorize(stack, { query, user: await stack.createUser() })
    expect(refused.status).toBe(302)
    expect(redirectQuery(refused.headers.location!)).toMatchObject({ error: 'invalid_scope', state: 's1' })

    const approved = await authorize(stack, { query, user: await stack.createUser({ role: 'admin' }) })
    expect(approved.status).toBe(302)
    const { code } = redirectQuery(approved.headers.location!)
    const token = await stack
      .api()
      .post('/oauth/token')
      .send({
        grant_type: 'authorization_code',
        code,
        redirect_uri: CALLBACK,
        client_id: app.client_id,
        client_secret: app.client_secret,
      })
      .expect(200)
    expect(token.body.scope).toBe('read admin:read')
  })

  it('client_credentials: an app token may hold admin scopes (the admin endpoints still need a user)', async () => {
    const app = await stack.registerApp('read admin:read')
    const token = await stack.appToken('admin:read', app)
    await stack
      .api()
      .get('/api/v1/apps/verify_credentials')
      .set('Authorization', `Bearer ${token}`)
      .expect(200)
  })
})
