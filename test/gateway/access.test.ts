import { forgedTokens } from '../forgery'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const INVALID = { error: 'The access token is invalid' }
const OUTSIDE = { error: 'This action is outside the authorized scopes' }

/** The routes the accounts service has seen, from its own request metrics. */
async function routesSeenByAccounts(): Promise<string> {
  const res = await fetch(`${stack.accountsUrl}/metrics`)
  return (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('http_request_duration_seconds_count'))
    .join('\n')
}

describe('the gateway checks tokens and scopes before proxying', () => {
  it('lets a valid app token through to GET /api/v1/apps/verify_credentials', async () => {
    const token = await stack.appToken('read')
    const res = await stack.api().get('/api/v1/apps/verify_credentials').set(bearer(token)).expect(200)
    expect(res.body.name).toBe('Roost tests')
    expect(await routesSeenByAccounts()).toContain('route="/api/v1/apps/verify_credentials"')
  })

  it('refuses a read token on a write route with 403, without reaching the service', async () => {
    const token = await stack.userToken('read')
    const res = await stack
      .api()
      .patch('/api/v1/accounts/update_credentials')
      .set(bearer(token))
      .send({ display_name: 'x' })
      .expect(403)
    expect(res.body).toEqual(OUTSIDE)
    expect(await routesSeenByAccounts()).not.toContain('/api/v1/accounts/update_credentials')
  })

  it('refuses read and write tokens on push routes: only push grants push', async () => {
    for (const scope of ['read', 'read write follow', 'write']) {
      const token = await stack.userToken(scope)
      for (const call of [
        stack.api().get('/api/v1/push/subscription'),
        stack.api().post('/api/v1/push/subscription').send({}),
        stack.api().delete('/api/v1/push/subscription'),
      ]) {
        const res = await call.set(bearer(token)).expect(403)
        expect(res.body).toEqual(OUTSIDE)
      }
    }
  })

  it('answers 401 on a required route without a token, or with a malformed Authorization header', async () => {
    let res = await stack.api().get('/api/v1/apps/verify_credentials').expect(401)
    expect(res.body).toEqual(INVALID)
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"')
    res = await stack.api().get('/api/v1/apps/verify_credentials').set('Authorization', 'Bearer').expect(401)
    expect(res.body).toEqual(INVALID)
    res = await stack.api().get('/api/v1/push/subscription').set('Authorization', 'Basic abc').expect(401)
    expect(res.body).toEqual(INVALID)
  })

  it('refuses forged tokens (alg none, HMAC with the public key, unknown keys) with 401', async () => {
    const real = await stack.appToken('read write push')
    await stack.api().get('/api/v1/apps/verify_credentials').set(bearer(real)).expect(200)
    const jwks = (await stack.api().get('/oauth/jwks').expect(200)).body
    for (const [kind, forged] of Object.entries(await forgedTokens(real, jwks))) {
      for (const path of ['/api/v1/apps/verify_credentials', '/api/v1/push/subscription']) {
        const res = await stack.api().get(path).set(bearer(forged))
        expect({ kind, path, status: res.status, body: res.body }).toEqual({
          kind,
          path,
          status: 401,
          body: INVALID,
        })
      }
    }
  })

  it('refuses a revoked token within a second', async () => {
    const app = await stack.registerApp('read write')
    const token = await stack.appToken('read', app)
    await stack.api().get('/api/v1/apps/verify_credentials').set(bearer(token)).expect(200)
    await stack
      .api()
      .post('/oauth/revoke')
      .send({ client_id: app.client_id, client_secret: app.client_secret, token })
      .expect(200, {})
    const revokedAt = Date.now()
    let status = 0
    while (Date.now() - revokedAt < 1000) {
      status = (await stack.api().get('/api/v1/apps/verify_credentials').set(bearer(token))).status
      if (status === 401) break
    }
    expect(status).toBe(401)
    // A revoked token is refused even on a public route, where an unknown one would read as "no token".
    const res = await stack.api().get('/api/v1/accounts/123').set(bearer(token)).expect(401)
    expect(res.body.error).toMatch(/access token/)
  })
})

describe('routing', () => {
  it('answers 404 Not Found for paths and methods outside the route table', async () => {
    for (const call of [
      stack.api().get('/nothing/here'),
      stack.api().get('/api/v1/apps'),
      stack.api().delete('/api/v1/apps'),
      stack.api().get('/api/v1/accounts/1/2/3'),
      stack.api().post('/api/v9/statuses'),
    ]) {
      const res = await call.expect(404)
      expect(res.body).toEqual({ error: 'Not Found' })
    }
  })

  it('does not parse bodies: a malformed JSON body reaches the service, which answers 400 JSON', async () => {
    const res = await stack
      .api()
      .post('/api/v1/apps')
      .set('Content-Type', 'application/json')
      .send('{"client_name": "broken",')
      .expect(400)
    expect(res.headers['content-type']).toMatch(/application\/json/)
    expect(res.body).toEqual({ error: 'The request body is not valid JSON' })
    // The accounts service parses bodies before routing, so its metrics file the request as unmatched.
    expect(await routesSeenByAccounts()).toMatch(/method="POST",route="unmatched",status="400"/)
  })

  it('forwards form and multipart bodies untouched', async () => {
    const form = await stack
      .api()
      .post('/api/v1/apps')
      .type('form')
      .send({ client_name: 'Form app', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read push' })
      .expect(200)
    expect(form.body).toMatchObject({ name: 'Form app', scopes: ['read', 'push'] })
    const multipart = await stack
      .api()
      .post('/api/v1/apps')
      .field('client_name', 'Multipart app')
      .field('redirect_uris', 'urn:ietf:wg:oauth:2.0:oob')
      .expect(200)
    expect(multipart.body).toMatchObject({ name: 'Multipart app', scopes: ['read'] })
  })
})
