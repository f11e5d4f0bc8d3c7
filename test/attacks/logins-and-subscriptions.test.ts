import { createSubscriberKeys } from '@roost/testing'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { authorize, pkce, redirectQuery } from '../oauth/code-flow'
import { attackLog, expectRefused } from './helpers'

// Findings 7 and 9 of issue #9: a suspended user got new tokens from the password grant (which then managed push
// subscriptions), a disabled user kept push access with an old token, and POSTing another user's endpoint URL
// deleted that user's subscription.
const log = attackLog('logins-and-subscriptions')
let stack: Stack
let admin: string
beforeAll(async () => {
  stack = await startStack({ env: { REGISTRATIONS_MODE: 'approved' } })
  admin = await stack.userToken('admin:read admin:write', await stack.createUser({ role: 'admin' }))
})
afterAll(() => stack.stop())

const PATH = '/api/v1/push/subscription'
const subscription = (endpoint = `https://push.example.test/${Math.random().toString(36).slice(2)}`) => {
  const keys = createSubscriberKeys()
  return { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } }
}
const act = (accountId: string, type: string) =>
  stack.api().post(`/api/v1/admin/accounts/${accountId}/action`).set(bearer(admin)).send({ type }).expect(200)

async function passwordGrant(user: { email: string; password: string }) {
  const app = await stack.registerApp('read write push')
  return stack.api().post('/oauth/token').send({
    grant_type: 'password',
    client_id: app.client_id,
    client_secret: app.client_secret,
    username: user.email,
    password: user.password,
    scope: 'read push',
  })
}

describe('no new tokens for a login that cannot be used', () => {
  it.each(['suspend', 'disable'])('after %s: the password grant answers invalid_grant', async (action) => {
    const user = await stack.createUser()
    await act(user.accountId, action)
    const res = await log.attempt(passwordGrant(user))
    expectRefused(res, 400)
    expect(res.body.error).toBe('invalid_grant')
  })

  it('a code approved before the suspension cannot be exchanged after it', async () => {
    const user = await stack.createUser()
    const callback = 'https://client.example.test/callback'
    const app = await stack.registerApp('read', callback)
    const { verifier, challenge } = pkce()
    const approved = await authorize(stack, {
      query: {
        response_type: 'code',
        client_id: app.client_id,
        redirect_uri: callback,
        scope: 'read',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
      user,
    })
    const { code } = redirectQuery(approved.headers.location!)
    await act(user.accountId, 'suspend')
    const res = await log.attempt(
      stack.api().post('/oauth/token').type('form').send({
        grant_type: 'authorization_code',
        redirect_uri: callback,
        code: code!,
        code_verifier: verifier,
        client_id: app.client_id,
        client_secret: app.client_secret,
      }),
    )
    expectRefused(res, 400)
    expect(res.body.error).toBe('invalid_grant')
  })
})

describe('the push API refuses logins that cannot be used, as every accounts route does', () => {
  it('a disabled user keeps their token but it no longer manages push subscriptions (403)', async () => {
    const user = await stack.createUser()
    const token = await stack.userToken('read push', user)
    await stack.api().post(PATH).set(bearer(token)).send({ subscription: subscription() }).expect(200)
    await act(user.accountId, 'disable')
    for (const req of [
      stack.api().get(PATH),
      stack.api().post(PATH).send({ subscription: subscription() }),
      stack
        .api()
        .put(PATH)
        .send({ data: { alerts: { mention: true } } }),
      stack.api().delete(PATH),
    ]) {
      const res = await log.attempt(req.set(bearer(token)))
      expectRefused(res, 403)
      expect(res.body).toEqual({ error: 'Your login is currently disabled' })
    }
  })

  it('a pending sign-up gets 403 pending approval, and the push API once approved', async () => {
    const app = await stack.appToken('read write push')
    const signUp = await stack
      .api()
      .post('/api/v1/accounts')
      .set(bearer(app))
      .send({
        username: 'waiting',
        email: 'waiting@example.test',
        password: 'long enough secret',
        agreement: true,
      })
      .expect(200)
    const token = signUp.body.access_token as string
    const res = await log.attempt(
      stack.api().post(PATH).set(bearer(token)).send({ subscription: subscription() }),
    )
    expectRefused(res, 403)
    expect(res.body).toEqual({ error: 'Your login is currently pending approval' })
    const account = await stack.accounts.ctx.db('accounts').where({ username: 'waiting' }).first()
    await stack.api().post(`/api/v1/admin/accounts/${account.id}/approve`).set(bearer(admin)).expect(200)
    await stack.api().post(PATH).set(bearer(token)).send({ subscription: subscription() }).expect(200)
  })

  it('the refusals come back after Redis lost them (republished at start-up)', async () => {
    const user = await stack.createUser()
    const token = await stack.userToken('push', user)
    await act(user.accountId, 'disable')
    await stack.accounts.ctx.redis.del(stack.accounts.ctx.logins.key)
    const { publishAllLoginStates } = await import('../../apps/accounts/src/users/login-state')
    await publishAllLoginStates(stack.accounts.ctx)
    expectRefused(await log.attempt(stack.api().get(PATH).set(bearer(token))), 403)
  })
})

describe('an endpoint belongs to its newest subscriber (docs/security.md)', () => {
  it("POSTing the victim's endpoint replaces the victim's subscription, and takes nothing of it along", async () => {
    const victim = await stack.userToken('push')
    const attacker = await stack.userToken('push')
    const sub = subscription()
    await stack
      .api()
      .post(PATH)
      .set(bearer(victim))
      .send({ subscription: sub, data: { alerts: { mention: true, follow: true } } })
      .expect(200)
    const taken = await log.attempt(
      stack
        .api()
        .post(PATH)
        .set(bearer(attacker))
        .send({ subscription: subscription(sub.endpoint) })
        .expect(200),
    )
    // The victim's record is gone; the attacker's is the attacker's own: none of the victim's alerts came along.
    await stack.api().get(PATH).set(bearer(victim)).expect(404)
    expect([taken.body.alerts.mention, taken.body.alerts.follow]).not.toContain(true)
    // The attacker's DELETE removes only the attacker's own row; the device subscribes again, and it holds.
    await log.attempt(stack.api().delete(PATH).set(bearer(attacker)).expect(200))
    await stack.api().post(PATH).set(bearer(victim)).send({ subscription: sub }).expect(200)
    await log.attempt(stack.api().delete(PATH).set(bearer(attacker)).expect(200))
    await stack.api().get(PATH).set(bearer(victim)).expect(200)
  })
})
