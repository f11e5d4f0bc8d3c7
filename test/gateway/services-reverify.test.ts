import { decodeJwt } from 'jose'
import { signTokenChecked, TOKEN_CHECKED_HEADER, TOKEN_CHECKED_LIFETIME_MS } from '@roost/auth'
import { forgedTokens } from '../forgery'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const INVALID = { error: 'The access token is invalid' }

/** Requests sent straight to a service, bypassing the gateway (as an attacker inside the network could). */
async function direct(base: string, path: string, headers: Record<string, string>) {
  const res = await fetch(`${base}${path}`, { headers })
  return { status: res.status, body: (await res.json()) as { error?: string } }
}

describe('services verify every token again; identity headers and unsigned claims count for nothing', () => {
  const targets = () => [
    { service: 'accounts', base: stack.accountsUrl, path: '/api/v1/apps/verify_credentials' },
    { service: 'push', base: stack.pushUrl, path: '/api/v1/push/subscription' },
  ]

  it('refuses identity headers without a token', async () => {
    const user = await stack.createUser()
    for (const { base, path } of targets()) {
      const res = await direct(base, path, {
        'X-User-Id': user.userId,
        'X-Account-Id': user.accountId,
        'X-Scopes': 'read write push',
        'X-Forwarded-For': '127.0.0.1',
      })
      expect(res).toEqual({ status: 401, body: INVALID })
    }
  })

  it('refuses forged tokens', async () => {
    const real = await stack.appToken('read write push')
    const jwks = (await stack.api().get('/oauth/jwks').expect(200)).body
    const forged = await forgedTokens(real, jwks)
    for (const { service, base, path } of targets())
      for (const [kind, token] of Object.entries(forged)) {
        const res = await direct(base, path, { Authorization: `Bearer ${token}` })
        expect({ service, kind, ...res }).toEqual({ service, kind, status: 401, body: INVALID })
      }
  })

  it('refuses revoked tokens, and checks scopes too', async () => {
    const app = await stack.registerApp('read write push')
    const token = await stack.appToken('read push', app)
    expect(
      (
        await direct(stack.accountsUrl, '/api/v1/apps/verify_credentials', {
          Authorization: `Bearer ${token}`,
        })
      ).status,
    ).toBe(200)
    const readOnly = await stack.appToken('read', app)
    expect(
      await direct(stack.pushUrl, '/api/v1/push/subscription', { Authorization: `Bearer ${readOnly}` }),
    ).toEqual({
      status: 403,
      body: { error: 'This action is outside the authorized scopes' },
    })
    await stack
      .api()
      .post('/oauth/revoke')
      .send({ client_id: app.client_id, client_secret: app.client_secret, token })
      .expect(200)
    for (const { base, path } of targets()) {
      const res = await direct(base, path, { Authorization: `Bearer ${token}` })
      expect(res.status).toBe(401)
      expect(res.body.error).toMatch(/^The access token (was revoked|is invalid)$/)
    }
  })

  it("take the gateway's word on a revoked token only when it is signed, fresh and for that token", async () => {
    const app = await stack.registerApp('read write push')
    const token = await stack.appToken('read push', app)
    const tokenId = decodeJwt(token).jti!
    const secret = stack.env.GATEWAY_SECRET!
    await stack
      .api()
      .post('/oauth/revoke')
      .send({ client_id: app.client_id, client_secret: app.client_secret, token })
      .expect(200)
    const other = await stack.appToken('read push', app)
    const refused: [string, string][] = [
      ['made up', `${Date.now()}.AAAA`],
      ['another secret', signTokenChecked('z'.repeat(40), tokenId)],
      ['another token', signTokenChecked(secret, decodeJwt(other).jti!)],
      ['too old', signTokenChecked(secret, tokenId, Date.now() - TOKEN_CHECKED_LIFETIME_MS - 1000)],
    ]
    for (const [kind, checked] of refused)
      for (const { service, base, path } of targets()) {
        const res = await direct(base, path, {
          Authorization: `Bearer ${token}`,
          [TOKEN_CHECKED_HEADER]: checked,
        })
        expect({ kind, service, status: res.status }).toEqual({ kind, service, status: 401 })
      }
    // The gateway's own word, just made: the services do not look the token up (the window docs/security.md
    // gives for someone who captured both inside the network).
    const fresh = {
      Authorization: `Bearer ${token}`,
      [TOKEN_CHECKED_HEADER]: signTokenChecked(secret, tokenId),
    }
    expect((await direct(stack.accountsUrl, '/api/v1/apps/verify_credentials', fresh)).status).toBe(200)
    // The push service gets past the token too, to refuse an app token what only a user may do.
    expect(await direct(stack.pushUrl, '/api/v1/push/subscription', fresh)).toEqual({
      status: 422,
      body: { error: 'This method requires an authenticated user' },
    })
    // Through the gateway a client's copy of the header counts for nothing: the gateway looks the token up itself.
    await stack
      .api()
      .get('/api/v1/apps/verify_credentials')
      .set(bearer(token))
      .set(TOKEN_CHECKED_HEADER, signTokenChecked(secret, tokenId))
      .expect(401)
  })
})
