import { startStack } from '../stack'
import type { Stack } from '../stack'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const tokenRequest = (body: Record<string, string>) => stack.api().post('/oauth/token').send(body)

describe('POST /oauth/token (docs/mastodon-compatibility.md, "OAuth")', () => {
  it('client_credentials: no scope gives read, a subset is granted as asked', async () => {
    const app = await stack.registerApp('read write push')
    const client = {
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
    }
    let res = await tokenRequest(client).expect(200)
    expect(res.body).toMatchObject({ scope: 'read', token_type: 'Bearer' })
    expect(Number.isInteger(res.body.created_at)).toBe(true)
    expect(res.headers.pragma).toBe('no-cache')
    res = await tokenRequest({ ...client, scope: 'read write' }).expect(200)
    expect(res.body.scope).toBe('read write')
    res = await tokenRequest({ ...client, scope: 'write+push' }).expect(200)
    expect(res.body.scope).toBe('write push')
  })

  it('client_credentials: a scope the app lacks, or an unknown one, is 400 invalid_scope', async () => {
    const app = await stack.registerApp('read write')
    for (const scope of ['read write push', 'read:accounts', 'crypto']) {
      const res = await tokenRequest({
        grant_type: 'client_credentials',
        client_id: app.client_id,
        client_secret: app.client_secret,
        scope,
      }).expect(400)
      expect(res.body).toEqual({
        error: 'invalid_scope',
        error_description: 'The requested scope is invalid, unknown, or malformed.',
      })
    }
  })

  it('answers 400 unsupported_grant_type for other grants and 400 invalid_request without grant_type', async () => {
    const app = await stack.registerApp()
    const client = { client_id: app.client_id, client_secret: app.client_secret }
    for (const grant of ['refresh_token', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code']) {
      const res = await tokenRequest({ ...client, grant_type: grant }).expect(400)
      expect(res.body).toEqual({
        error: 'unsupported_grant_type',
        error_description: 'The authorization grant type is not supported by the authorization server.',
      })
    }
    const res = await tokenRequest(client).expect(400)
    expect(res.body.error).toBe('invalid_request')
    expect(res.body.error_description).toMatch(/grant_type/)
  })

  it('authenticates clients with HTTP Basic (client_secret_basic)', async () => {
    const app = await stack.registerApp('read write')
    const res = await stack
      .api()
      .post('/oauth/token')
      .auth(app.client_id, app.client_secret)
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'write' })
      .expect(200)
    expect(res.body.scope).toBe('write')
    const wrong = await stack
      .api()
      .post('/oauth/token')
      .auth(app.client_id, 'wrong')
      .type('form')
      .send({ grant_type: 'client_credentials' })
      .expect(401)
    expect(wrong.body.error).toBe('invalid_client')
    const unknown = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: 'nobody',
      client_secret: 'x',
    })
    expect(unknown.status).toBe(401)
    expect(unknown.body.error).toBe('invalid_client')
  })

  it('password grant (on in tests): a user token with the asked scopes; a wrong password is invalid_grant', async () => {
    const app = await stack.registerApp('read write push')
    const user = await stack.createUser()
    const password = { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret }
    const res = await tokenRequest({
      ...password,
      username: user.email,
      password: user.password,
      scope: 'push',
    })
    expect(res.status).toBe(200)
    expect(res.body.scope).toBe('push')
    const wrong = await tokenRequest({ ...password, username: user.email, password: 'nope' }).expect(400)
    expect(wrong.body.error).toBe('invalid_grant')
  })
})

describe('password grant switched off', () => {
  let off: Stack
  beforeAll(async () => {
    off = await startStack({ env: { OAUTH_PASSWORD_GRANT: 'false' } })
  })
  afterAll(() => off.stop())

  it('answers unsupported_grant_type and leaves it out of the metadata', async () => {
    const app = await off.registerApp()
    const user = await off.createUser()
    const res = await off
      .api()
      .post('/oauth/token')
      .send({
        grant_type: 'password',
        client_id: app.client_id,
        client_secret: app.client_secret,
        username: user.email,
        password: user.password,
      })
      .expect(400)
    expect(res.body.error).toBe('unsupported_grant_type')
    const metadata = await off.api().get('/.well-known/oauth-authorization-server').expect(200)
    expect(metadata.body.grant_types_supported).toEqual(['authorization_code', 'client_credentials'])
  })
})
