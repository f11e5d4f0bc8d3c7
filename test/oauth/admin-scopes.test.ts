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

describe('admin scopes go to staff only; others still sign in, without them', () => {
  it('password grant: a user gets the token without the admin scopes, a moderator or an admin with them', async () => {
    const user = await stack.createUser()
    const res = await passwordGrant(user, 'read admin:write:accounts')
    expect({ status: res.status, scope: res.body.scope }).toEqual({ status: 200, scope: 'read' })
    // The admin routes answer 403 to such a token: it holds no admin scope.
    await stack
      .api()
      .get('/api/v1/admin/accounts')
      .set('Authorization', `Bearer ${res.body.access_token}`)
      .expect(403)
    await stack
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set('Authorization', `Bearer ${res.body.access_token}`)
      .expect(200)
    // Asking for admin scopes only leaves nothing to grant.
    const only = await passwordGrant(user, 'admin:read')
    expect({ status: only.status, body: only.body }).toEqual({ status: 400, body: INVALID_SCOPE })
    // A role's holder gets them; what each call allows is then its role's permissions (docs/moderation.md):
    // a moderator (manage_users, manage_reports…) lists accounts but may not manage roles.
    const mod = await stack.createUser({ role: 'moderator' })
    const modToken = await passwordGrant(mod, 'read admin:read admin:write:accounts')
    expect(modToken.body.scope).toBe('read admin:read admin:write:accounts')
    const asMod = (path: string) =>
      stack.api().get(path).set('Authorization', `Bearer ${modToken.body.access_token}`)
    await asMod('/api/v1/admin/accounts').expect(200)
    expect((await asMod('/api/v1/admin/roles').expect(403)).body).toEqual({
      error: 'This action is not allowed',
    })
    const admin = await stack.createUser({ role: 'admin' })
    const adminToken = await passwordGrant(admin, 'read admin:read admin:write:accounts')
    expect(adminToken.status).toBe(200)
    expect(adminToken.body.scope).toBe('read admin:read admin:write:accounts')
  })

  it('authorization: a user signs in and gets the token without admin scopes, an admin with them', async () => {
    const app = await stack.registerApp('read admin:read', CALLBACK)
    const query = {
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: CALLBACK,
      scope: 'read admin:read',
      state: 's1',
    }
    const exchange = async (code: string | undefined) =>
      stack
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
    const user = await authorize(stack, { query, user: await stack.createUser() })
    expect(user.status).toBe(302)
    const userCode = redirectQuery(user.headers.location!)
    expect(userCode.state).toBe('s1')
    const userToken = await exchange(userCode.code)
    expect(userToken.body.scope).toBe('read')
    await stack
      .api()
      .get('/api/v1/admin/accounts')
      .set('Authorization', `Bearer ${userToken.body.access_token}`)
      .expect(403)

    const onlyAdmin = await authorize(stack, {
      query: { ...query, scope: 'admin:read' },
      user: await stack.createUser(),
    })
    expect(redirectQuery(onlyAdmin.headers.location!)).toMatchObject({ error: 'invalid_scope', state: 's1' })

    const approved = await authorize(stack, { query, user: await stack.createUser({ role: 'admin' }) })
    expect(approved.status).toBe(302)
    const token = await exchange(redirectQuery(approved.headers.location!).code)
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
