import { startStack } from '../stack'
import type { Stack } from '../stack'
import { authorize, hiddenFields, OOB, pkce, redirectQuery, visitorCookie } from './code-flow'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const CALLBACK = 'https://client.example/callback'

async function setUp(appScopes = 'read write push', redirectUris = `${CALLBACK}\n${OOB}`) {
  const app = await stack.registerApp(appScopes, redirectUris)
  const user = await stack.createUser()
  return { app, user }
}

const query = (clientId: string, extra: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: CALLBACK,
  scope: 'read write',
  state: 'xyz 123',
  ...extra,
})

function exchange(body: Record<string, string>) {
  return stack
    .api()
    .post('/oauth/token')
    .type('form')
    .send({ grant_type: 'authorization_code', redirect_uri: CALLBACK, ...body })
}

describe('authorization code with PKCE, through the gateway', () => {
  it('signs in, approves, exchanges the code with its verifier and uses the token', async () => {
    const { app, user } = await setUp()
    const { verifier, challenge } = pkce()
    const approved = await authorize(stack, {
      query: query(app.client_id, { code_challenge: challenge, code_challenge_method: 'S256' }),
      user,
    })
    expect(approved.status).toBe(302)
    const { code, state } = redirectQuery(approved.headers.location!)
    expect(state).toBe('xyz 123')
    expect(approved.headers.location!.startsWith(`${CALLBACK}?`)).toBe(true)

    const token = await exchange({
      code: code!,
      code_verifier: verifier,
      client_id: app.client_id,
      client_secret: app.client_secret,
      scope: 'read write push', // ignored: the token gets the grant's scopes
    }).expect(200)
    expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'read write' })
    const verified = await stack
      .api()
      .get('/api/v1/apps/verify_credentials')
      .set('Authorization', `Bearer ${token.body.access_token}`)
      .expect(200)
    expect(verified.body.name).toBe('Roost tests')
  })

  it('refuses a wrong verifier, a missing verifier and a reused code with 400 invalid_grant', async () => {
    const { app, user } = await setUp()
    const { verifier, challenge } = pkce()
    const approved = await authorize(stack, {
      query: query(app.client_id, { code_challenge: challenge, code_challenge_method: 'S256' }),
      user,
    })
    const { code } = redirectQuery(approved.headers.location!)
    const client = { client_id: app.client_id, client_secret: app.client_secret }
    let res = await exchange({ code: code!, code_verifier: pkce().verifier, ...client }).expect(400)
    expect(res.body.error).toBe('invalid_grant')
    res = await exchange({ code: code!, ...client }).expect(400)
    expect(res.body.error).toBe('invalid_grant')
    await exchange({ code: code!, code_verifier: verifier, ...client }).expect(200)
    res = await exchange({ code: code!, code_verifier: verifier, ...client }).expect(400)
    expect(res.body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/invalid/),
    })
  })

  it('refuses a code exchanged with another redirect_uri, or by another app', async () => {
    const { app, user } = await setUp()
    const approved = await authorize(stack, { query: query(app.client_id), user })
    const { code } = redirectQuery(approved.headers.location!)
    let res = await exchange({
      code: code!,
      client_id: app.client_id,
      client_secret: app.client_secret,
      redirect_uri: OOB,
    }).expect(400)
    expect(res.body.error).toBe('invalid_grant')
    const other = await stack.registerApp('read write push', CALLBACK)
    res = await exchange({
      code: code!,
      client_id: other.client_id,
      client_secret: other.client_secret,
    }).expect(400)
    expect(res.body.error).toBe('invalid_grant')
    // The code is still good for its own app and redirect URI.
    await exchange({ code: code!, client_id: app.client_id, client_secret: app.client_secret }).expect(200)
  })

  it('redirects with error=access_denied and the state when the user denies', async () => {
    const { app, user } = await setUp()
    const denied = await authorize(stack, { query: query(app.client_id), user, action: 'deny' })
    expect(denied.status).toBe(302)
    expect(redirectQuery(denied.headers.location!)).toMatchObject({
      error: 'access_denied',
      state: 'xyz 123',
    })
    expect(redirectQuery(denied.headers.location!)).not.toHaveProperty('code')
  })

  it('shows the code on a page for the out-of-band redirect URI', async () => {
    const { app, user } = await setUp()
    const page = await authorize(stack, { query: query(app.client_id, { redirect_uri: OOB }), user })
    expect(page.status).toBe(200)
    const code = page.text.match(/<code id="code">([^<]+)<\/code>/)?.[1]
    expect(code).toBeTruthy()
    const token = await exchange({
      code: code!,
      client_id: app.client_id,
      client_secret: app.client_secret,
      redirect_uri: OOB,
    }).expect(200)
    expect(token.body.scope).toBe('read write')
  })

  it('shows an error page (400) for an unknown client_id or a redirect_uri the app does not have', async () => {
    const { app } = await setUp()
    let res = await stack.api().get('/oauth/authorize').query(query('no-such-client')).expect(400)
    expect(res.headers['content-type']).toMatch(/text\/html/)
    expect(res.text).toContain('unknown client')
    res = await stack
      .api()
      .get('/oauth/authorize')
      .query(query(app.client_id, { redirect_uri: 'https://evil.example/steal' }))
      .expect(400)
    expect(res.text).toContain('redirect URI')
    expect(res.headers.location).toBeUndefined()
  })

  it('redirects with error=invalid_scope for a scope beyond the app’s, or an unknown one', async () => {
    const { app } = await setUp('read')
    for (const scope of ['read write', 'read crypto']) {
      const res = await stack.api().get('/oauth/authorize').query(query(app.client_id, { scope })).expect(302)
      expect(redirectQuery(res.headers.location!)).toMatchObject({ error: 'invalid_scope', state: 'xyz 123' })
    }
  })

  it('refuses a sign-in form without its CSRF token, and a wrong password', async () => {
    const { app, user } = await setUp()
    const page = await stack.api().get('/oauth/authorize').query(query(app.client_id)).expect(200)
    const fields = hiddenFields(page.text)
    const cookie = visitorCookie(page)
    expect(cookie).toMatch(/^roost_visitor=[\w-]{43}$/)
    await stack
      .api()
      .post('/oauth/authorize')
      .set('Cookie', cookie)
      .type('form')
      .send({ ...fields, csrf_token: 'forged', email: user.email, password: user.password })
      .expect(403)
    const wrong = await stack
      .api()
      .post('/oauth/authorize')
      .set('Cookie', cookie)
      .type('form')
      .send({ ...fields, email: user.email, password: 'not the password' })
      .expect(401)
    expect(wrong.text).toContain('Invalid e-mail address or password.')
    expect(wrong.headers['set-cookie']).toBeUndefined()
  })
})
