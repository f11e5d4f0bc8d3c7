import { startStack } from '../../stack'
import type { Stack } from '../../stack'

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

const yearsAgo = (years: number) => {
  const d = new Date()
  d.setUTCFullYear(d.getUTCFullYear() - years)
  return d
}
const iso = (d: Date) => d.toISOString().slice(0, 10)
const dotted = (d: Date) => `${iso(d).slice(8, 10)}.${iso(d).slice(5, 7)}.${iso(d).slice(0, 4)}`

let names = 0
const newUser = (extra: Record<string, unknown> = {}) => {
  const username = `signup${++names}`
  return {
    username,
    email: `${username}@example.test`,
    password: 'long enough secret',
    agreement: 'true',
    ...extra,
  }
}

describe('POST /api/v1/accounts (open registrations)', () => {
  let stack: Stack
  let appToken: string
  beforeAll(async () => {
    stack = await startStack()
    appToken = await stack.appToken('read write')
  })
  afterAll(() => stack.stop())

  const signUp = (body: object, token = appToken) =>
    stack.api().post('/api/v1/accounts').set(bearer(token)).send(body)

  it('answers a usable Bearer token with the app scopes, and records the app', async () => {
    const body = newUser({ locale: 'de' })
    const res = await signUp(body).expect(200)
    expect(res.body).toMatchObject({ token_type: 'Bearer', scope: 'read write' })
    expect(typeof res.body.access_token).toBe('string')
    expect(Number.isInteger(res.body.created_at)).toBe(true)

    const me = await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(res.body.access_token))
    expect(me.status).toBe(200)
    expect(me.body).toMatchObject({ username: body.username, acct: body.username, locked: false })

    const user = await stack.accounts.ctx.db('users').where({ email: body.email }).first()
    const app = await stack.accounts.ctx
      .db('oauth_applications')
      .where({ id: user.created_by_application_id })
      .first()
    expect(app.name).toBe('Roost tests')
    expect(user).toMatchObject({ locale: 'de', approved: true })
  })

  it('accepts a form-encoded sign-up and the agreement as "1"', async () => {
    const res = await stack
      .api()
      .post('/api/v1/accounts')
      .set(bearer(appToken))
      .type('form')
      .send(newUser({ agreement: '1' }))
    expect(res.status).toBe(200)
  })

  it('refuses a user token with 403', async () => {
    const userToken = await stack.userToken('read write')
    const res = await signUp(newUser(), userToken).expect(403)
    expect(res.body).toEqual({ error: 'This method requires an client credentials authentication' })
  })

  it('refuses a token without write:accounts (403) and no token (401)', async () => {
    const readOnly = await stack.appToken('read')
    expect((await signUp(newUser(), readOnly).expect(403)).body.error).toBe(
      'This action is outside the authorized scopes',
    )
    const anonymous = await stack.api().post('/api/v1/accounts').send(newUser()).expect(401)
    expect(anonymous.body.error).toBe('The access token is invalid')
  })

  it('refuses a missing username with ERR_BLANK and creates nothing', async () => {
    const body = newUser({ username: undefined })
    const res = await signUp(body).expect(422)
    expect(res.body.error).toMatch(/Validation failed/)
    expect(res.body.details.username).toEqual([
      { error: 'ERR_BLANK', description: expect.stringMatching(/can't be blank/) },
    ])
    expect(await stack.accounts.ctx.db('users').where({ email: body.email }).first()).toBeUndefined()
  })

  it('refuses a missing agreement with ERR_ACCEPTED', async () => {
    const res = await signUp(newUser({ agreement: undefined })).expect(422)
    expect(res.body.details.agreement[0].error).toBe('ERR_ACCEPTED')
    expect((await signUp(newUser({ agreement: 'false' })).expect(422)).body.details.agreement).toBeDefined()
  })

  it('refuses taken usernames and e-mails case-insensitively with ERR_TAKEN', async () => {
    const first = newUser()
    await signUp(first).expect(200)
    const res = await signUp({
      ...newUser(),
      username: first.username.toUpperCase(),
      email: first.email.toUpperCase(),
    }).expect(422)
    expect(res.body.details.username[0].error).toBe('ERR_TAKEN')
    expect(res.body.details.email[0].error).toBe('ERR_TAKEN')
  })

  it.each([
    ['email', 'ERR_INVALID', { email: 'not-an-address' }],
    ['email', 'ERR_TOO_LONG', { email: `${'a'.repeat(320)}@example.test` }],
    ['password', 'ERR_TOO_SHORT', { password: 'short' }],
    ['password', 'ERR_TOO_LONG', { password: 'p'.repeat(73) }],
    ['username', 'ERR_INVALID', { username: 'has space' }],
    ['username', 'ERR_INVALID', { username: 'dots.are.out' }],
    ['username', 'ERR_TOO_LONG', { username: 'u'.repeat(31) }],
    ['username', 'ERR_RESERVED', { username: 'Admin' }],
    ['username', 'ERR_BLANK', { username: { nested: 'object' } }],
    ['reason', 'ERR_TOO_LONG', { reason: 'r'.repeat(421) }],
  ])('refuses a bad %s with %s (%#)', async (param, kind, extra) => {
    const res = await signUp(newUser(extra)).expect(422)
    expect(res.body.details[param][0].error).toBe(kind)
    expect(res.body.error).toMatch(/^Validation failed: /)
  })

  it('answers malformed JSON with 400 and an error', async () => {
    const res = await stack
      .api()
      .post('/api/v1/accounts')
      .set(bearer(appToken))
      .set('Content-Type', 'application/json')
      .send('{"username": ')
      .expect(400)
    expect(typeof res.body.error).toBe('string')
  })
})

describe('POST /api/v1/accounts (approval required, reason required, minimum age 16)', () => {
  let stack: Stack
  let appToken: string
  beforeAll(async () => {
    stack = await startStack({
      env: {
        REGISTRATIONS_MODE: 'approved',
        REGISTRATIONS_REASON_REQUIRED: 'true',
        REGISTRATIONS_MIN_AGE: '16',
      },
    })
    appToken = await stack.appToken('read write')
  })
  afterAll(() => stack.stop())

  const signUp = (body: object) => stack.api().post('/api/v1/accounts').set(bearer(appToken)).send(body)

  it('creates a pending account whose token answers 403 until approved, and keeps the reason', async () => {
    const body = newUser({ reason: 'I like birds', date_of_birth: iso(yearsAgo(17)) })
    const res = await signUp(body).expect(200)
    const me = await stack
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set(bearer(res.body.access_token))
      .expect(403)
    expect(me.body).toEqual({ error: 'Your login is currently pending approval' })
    const user = await stack.accounts.ctx.db('users').where({ email: body.email }).first()
    expect(user).toMatchObject({ approved: false, sign_up_reason: 'I like birds' })
    // Pending accounts are invisible to others.
    await stack.api().get(`/api/v1/accounts/${user.account_id}`).expect(404)
  })

  it('requires a reason', async () => {
    const res = await signUp(newUser({ date_of_birth: iso(yearsAgo(17)) })).expect(422)
    expect(res.body.details.reason[0]).toEqual({ error: 'ERR_BLANK', description: "can't be blank" })
  })

  it('refuses someone below the age limit with ERR_BELOW_LIMIT', async () => {
    const res = await signUp(newUser({ reason: 'hi', date_of_birth: iso(yearsAgo(13)) })).expect(422)
    expect(res.body.details.date_of_birth[0]).toEqual({
      error: 'ERR_BELOW_LIMIT',
      description: expect.stringMatching(/below the age limit/),
    })
  })

  it('accepts DD.MM.YYYY and YYYY-MM-DD dates of birth, and refuses nonsense dates', async () => {
    await signUp(newUser({ reason: 'hi', date_of_birth: dotted(yearsAgo(17)) })).expect(200)
    await signUp(newUser({ reason: 'hi', date_of_birth: iso(yearsAgo(17)) })).expect(200)
    const bad = await signUp(newUser({ reason: 'hi', date_of_birth: '2001-02-30' })).expect(422)
    expect(bad.body.details.date_of_birth[0].error).toBe('ERR_INVALID')
    const missing = await signUp(newUser({ reason: 'hi' })).expect(422)
    expect(missing.body.details.date_of_birth[0].error).toBe('ERR_BLANK')
  })
})

describe('POST /api/v1/accounts (closed registrations and e-mail confirmation)', () => {
  let closed: Stack
  let confirming: Stack
  beforeAll(async () => {
    ;[closed, confirming] = await Promise.all([
      startStack({ env: { REGISTRATIONS_MODE: 'none' } }),
      startStack({ env: { REQUIRE_EMAIL_CONFIRMATION: 'true' } }),
    ])
  })
  afterAll(() => Promise.all([closed.stop(), confirming.stop()]))

  it('answers 403 Forbidden when registrations are closed', async () => {
    const token = await closed.appToken('read write')
    const res = await closed.api().post('/api/v1/accounts').set(bearer(token)).send(newUser()).expect(403)
    expect(res.body).toEqual({ error: 'Forbidden' })
    const instance = await closed.api().get('/api/v2/instance').expect(200)
    expect(instance.body.registrations).toMatchObject({ enabled: false, approval_required: false })
  })

  it('leaves the e-mail unconfirmed when confirmation is required: the token answers 403', async () => {
    const token = await confirming.appToken('read write')
    const body = newUser()
    const res = await confirming.api().post('/api/v1/accounts').set(bearer(token)).send(body).expect(200)
    const me = await confirming
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set(bearer(res.body.access_token))
      .expect(403)
    expect(me.body).toEqual({ error: 'Your login is missing a confirmed e-mail address' })
    const user = await confirming.accounts.ctx.db('users').where({ email: body.email }).first()
    expect(user.confirmed_at).toBeNull()
  })
})
