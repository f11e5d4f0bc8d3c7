import { importJWK, jwtVerify } from 'jose'
import { ALL_SCOPES } from '@roost/auth'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

describe('POST /oauth/revoke (docs/mastodon-compatibility.md, "OAuth")', () => {
  it('revokes; the token is then refused by the gateway and by both services', async () => {
    const app = await stack.registerApp('read write push')
    const token = await stack.appToken('read push', app)
    await stack.api().get('/api/v1/apps/verify_credentials').set(bearer(token)).expect(200)
    await stack
      .api()
      .post('/oauth/revoke')
      .type('form')
      .send({ client_id: app.client_id, client_secret: app.client_secret, token })
      .expect(200, {})
    await stack.api().get('/api/v1/apps/verify_credentials').set(bearer(token)).expect(401)
    await stack.api().get('/api/v1/push/subscription').set(bearer(token)).expect(401)
    const accounts = await fetch(`${stack.accountsUrl}/api/v1/apps/verify_credentials`, {
      headers: bearer(token),
    })
    expect(accounts.status).toBe(401)
    const push = await fetch(`${stack.pushUrl}/api/v1/push/subscription`, { headers: bearer(token) })
    expect(push.status).toBe(401)
    // Revoking again is harmless.
    await stack
      .api()
      .post('/oauth/revoke')
      .send({ client_id: app.client_id, client_secret: app.client_secret, token })
      .expect(200, {})
  })

  it('answers 200 {} for an unknown token, and for a missing one', async () => {
    const app = await stack.registerApp()
    const client = { client_id: app.client_id, client_secret: app.client_secret }
    await stack
      .api()
      .post('/oauth/revoke')
      .send({ ...client, token: 'not-a-token' })
      .expect(200, {})
    await stack.api().post('/oauth/revoke').send(client).expect(200, {})
  })

  it('answers 403 unauthorized_client for another app’s token or a wrong secret, and keeps the token', async () => {
    const owner = await stack.registerApp()
    const token = await stack.appToken('read', owner)
    const other = await stack.registerApp()
    let res = await stack
      .api()
      .post('/oauth/revoke')
      .send({ client_id: other.client_id, client_secret: other.client_secret, token })
      .expect(403)
    expect(res.body).toEqual({
      error: 'unauthorized_client',
      error_description: 'You are not authorized to revoke this token',
    })
    res = await stack
      .api()
      .post('/oauth/revoke')
      .send({ client_id: owner.client_id, client_secret: 'wrong', token })
      .expect(403)
    expect(res.body.error).toBe('unauthorized_client')
    await stack.api().get('/api/v1/apps/verify_credentials').set(bearer(token)).expect(200)
  })
})

describe('discovery', () => {
  it('publishes the authorization server metadata (RFC 8414, Mastodon’s fields)', async () => {
    const res = await stack.api().get('/.well-known/oauth-authorization-server').expect(200)
    const base = stack.url
    expect(res.body).toEqual({
      issuer: `${base}/`,
      service_documentation: 'https://docs.joinmastodon.org/',
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      app_registration_endpoint: `${base}/api/v1/apps`,
      revocation_endpoint: `${base}/oauth/revoke`,
      jwks_uri: `${base}/oauth/jwks`,
      scopes_supported: [...ALL_SCOPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query', 'fragment', 'form_post'],
      grant_types_supported: ['authorization_code', 'client_credentials', 'password'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
    })
  })

  it('publishes the public signing keys, which verify issued tokens, and never a private part', async () => {
    const res = await stack.api().get('/oauth/jwks').expect(200)
    expect(res.body.keys).toHaveLength(1)
    const [key] = res.body.keys
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: 'test-key' })
    expect(key).not.toHaveProperty('d')
    const token = await stack.appToken('read write')
    const { payload, protectedHeader } = await jwtVerify(token, await importJWK(key, 'ES256'))
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: 'test-key' })
    expect(payload).toMatchObject({ iss: `${stack.url}/`, scope: 'read write' })
    expect(payload).not.toHaveProperty('sub')
    expect(typeof payload.jti).toBe('string')
    expect(typeof payload.client_id).toBe('string')
  })
})
