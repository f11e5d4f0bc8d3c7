import { Secret, TOTP } from 'otpauth'
import request from 'supertest'
import { main } from '../../apps/accounts/src/cli'
import { bearer } from '../stack'
import type { Stack } from '../stack'
import { startMailStack } from '../mail/smtp-receiver'
import type { SmtpReceiver } from '../mail/smtp-receiver'

/**
 * The last gaps of issue #35, through the pages and the API with supertest and a real SMTP server on loopback: TOTP
 * secrets encrypted at rest, an admin turning two-factor sign-in off from the CLI, the warning mail of a moderation
 * decision, and the page that sends the confirmation mail again (docs/security.md).
 */
let stack: Stack
let smtp: SmtpReceiver
let stop: () => Promise<void>
beforeAll(async () => {
  ;({ smtp, stack, stop } = await startMailStack({
    env: {
      RATE_LIMIT_SIGN_IN_IP: '1000/300',
      RATE_LIMIT_MAIL_IP: '1000/300',
      RATE_LIMIT_MAIL_ACCOUNT: '3/1800',
    },
  }))
}, 60_000)
afterAll(async () => {
  await stop?.()
})

const totp = (secret: string) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) })

const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)![1]!
const textOf = (html: string, id: string) => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)![1]!.trim()

/** Signs in on /auth/sign_in with the password (and a code when asked); the agent keeps the cookies. */
async function signIn(agent: request.Agent, user: { email: string; password: string }, code?: () => string) {
  const form = await agent.get('/auth/sign_in').expect(200)
  const first = await agent
    .post('/auth/sign_in')
    .type('form')
    .send({ action: 'sign_in', email: user.email, password: user.password, csrf_token: csrfOf(form.text) })
  if (!code) return first
  expect(first.status).toBe(200)
  expect(first.text).toContain('Two-factor authentication')
  return agent
    .post('/auth/sign_in')
    .type('form')
    .send({ action: 'two_factor', code: code(), csrf_token: csrfOf(first.text) })
}

/** Enrols TOTP through the settings pages; the base32 secret the page showed. */
async function enrol(agent: request.Agent) {
  const page = await agent.get('/settings/two_factor').expect(200)
  const setup = await agent
    .post('/settings/two_factor/setup')
    .type('form')
    .send({ csrf_token: csrfOf(page.text) })
    .expect(200)
  const secret = textOf(setup.text, 'secret')
  const done = await agent
    .post('/settings/two_factor/confirm')
    .type('form')
    .send({ csrf_token: csrfOf(setup.text), code: totp(secret).generate() })
    .expect(200)
  expect(done.text).toContain('recovery-codes')
  return secret
}

async function cli(...args: string[]) {
  const out: string[] = []
  const log = jest.spyOn(console, 'log').mockImplementation((m: unknown) => void out.push(String(m)))
  const error = jest.spyOn(console, 'error').mockImplementation((m: unknown) => void out.push(String(m)))
  try {
    const code = await main(args, {
      DATABASE_URL: stack.env.DATABASE_URL,
      REDIS_URL: stack.env.REDIS_URL,
      REDIS_PREFIX: stack.env.REDIS_PREFIX,
    })
    return { code, out: out.join('\n') }
  } finally {
    log.mockRestore()
    error.mockRestore()
  }
}

describe('TOTP secrets at rest', () => {
  it('never keeps the base32 secret in the column, and signing in with a code still works', async () => {
    const user = await stack.createUser({ username: 'otto' })
    const agent = request.agent(stack.url)
    expect((await signIn(agent, user)).status).toBe(303)
    const secret = await enrol(agent)
    const row = await stack.accounts.ctx.db('users').where({ id: user.userId }).first('otp_secret')
    expect(row.otp_secret).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/)
    expect(row.otp_secret).not.toContain(secret)

    // The enrolment used this step's code (a code works once): the next step's, within the drift allowed.
    const again = request.agent(stack.url)
    const res = await signIn(again, user, () => totp(secret).generate({ timestamp: Date.now() + 30_000 }))
    expect(res.status).toBe(303)
    // A wrong code is refused.
    const wrong = await signIn(request.agent(stack.url), user, () => '000000')
    expect(wrong.status).toBe(401)
  }, 60_000)

  it('reads a secret stored before encryption, and seals it at the first code', async () => {
    const user = await stack.createUser({ username: 'olga' })
    const agent = request.agent(stack.url)
    expect((await signIn(agent, user)).status).toBe(303)
    const secret = await enrol(agent)
    // As a row written before OTP_SECRET existed: the base32 secret itself.
    await stack.accounts.ctx
      .db('users')
      .where({ id: user.userId })
      .update({ otp_secret: secret, otp_last_step: null })
    expect((await signIn(request.agent(stack.url), user, () => totp(secret).generate())).status).toBe(303)
    const row = await stack.accounts.ctx.db('users').where({ id: user.userId }).first('otp_secret')
    expect(row.otp_secret.startsWith('v1:')).toBe(true)
  }, 60_000)
})

describe('roost accounts disable-2fa', () => {
  it('turns two-factor sign-in off for a user who lost every factor, and tells them by mail', async () => {
    const user = await stack.createUser({ username: 'lost' })
    const agent = request.agent(stack.url)
    expect((await signIn(agent, user)).status).toBe(303)
    await enrol(agent)
    await smtp.next(user.email, /^Two-factor authentication enabled on Roost Test Town$/)

    expect(await cli('accounts', 'disable-2fa', 'lost')).toEqual({ code: 0, out: 'OK' })
    const row = await stack.accounts.ctx.db('users').where({ id: user.userId }).first()
    expect(row.otp_enabled_at).toBeNull()
    expect(row.otp_secret).toBeNull()
    expect(row.otp_backup_codes).toEqual([])
    await smtp.next(user.email, /^Two-factor authentication disabled on Roost Test Town$/)
    // The password alone opens the account again.
    expect((await signIn(request.agent(stack.url), user)).status).toBe(303)

    expect(await cli('accounts', 'disable-2fa', 'lost')).toEqual({
      code: 1,
      out: 'lost does not use two-factor sign-in',
    })
    expect(await cli('accounts', 'disable-2fa', 'nobody')).toEqual({
      code: 1,
      out: 'No account named nobody',
    })
  }, 60_000)
})

describe('the warning mail of a moderation decision', () => {
  it('is sent with the text when the moderator asks for it, with Mastodon’s subject per action', async () => {
    const admin = await stack.createUser({ username: 'boss', role: 'admin' })
    const token = await stack.userToken('admin:read admin:write', admin)
    const user = await stack.createUser({ username: 'rowdy' })
    await stack
      .api()
      .post(`/api/v1/admin/accounts/${user.accountId}/action`)
      .set(bearer(token))
      .send({ type: 'none', text: 'Please keep it civil.', send_email_notification: true })
      .expect(200)
    const warned = await smtp.next(user.email, /^Warning for @rowdy@/)
    expect(warned.text).toContain('Please keep it civil.')

    await stack
      .api()
      .post(`/api/v1/admin/accounts/${user.accountId}/action`)
      .set(bearer(token))
      .send({ type: 'silence', text: 'Spam.', send_email_notification: 'true' })
      .expect(200)
    const limited = await smtp.next(user.email, /^Your account @rowdy@\S+ has been limited$/)
    expect(limited.text).toContain('Spam.')

    // Without send_email_notification: the action, no warning and no mail (as Mastodon).
    const quiet = await stack.createUser({ username: 'quiet' })
    await stack
      .api()
      .post(`/api/v1/admin/accounts/${quiet.accountId}/action`)
      .set(bearer(token))
      .send({ type: 'suspend', text: 'Gone.' })
      .expect(200)
    const warnings = await stack.accounts.ctx
      .db('account_warnings')
      .where({ target_account_id: quiet.accountId })
    expect(warnings).toEqual([])
    const rows = await stack.accounts.ctx
      .db('account_warnings')
      .where({ target_account_id: user.accountId })
      .orderBy('id')
    expect(rows.map((r) => [r.action, r.text])).toEqual([
      ['none', 'Please keep it civil.'],
      ['silence', 'Spam.'],
    ])
    // A report on the account, resolved by the suspension that answers it (Mastodon's report_id), in the log.
    const reporter = await stack.userToken('read write')
    const report = await stack
      .api()
      .post('/api/v1/reports')
      .set(bearer(reporter))
      .send({ account_id: user.accountId, comment: 'rowdy again' })
      .expect(200)
    // The suspension mail is not sent later either: the suspended one had not asked for it.
    await stack
      .api()
      .post(`/api/v1/admin/accounts/${user.accountId}/action`)
      .set(bearer(token))
      .send({ type: 'suspend', send_email_notification: true, report_id: report.body.id })
      .expect(200)
    await smtp.next(user.email, /^Your account @rowdy@\S+ has been suspended$/)
    const resolved = await stack
      .api()
      .get(`/api/v1/admin/reports/${report.body.id}`)
      .set(bearer(token))
      .expect(200)
    expect(resolved.body).toMatchObject({
      action_taken: true,
      action_taken_by_account: { id: admin.accountId },
    })
    const log = await stack
      .api()
      .get(`/api/v1/admin/action_logs?account_id=${admin.accountId}&limit=3`)
      .set(bearer(token))
      .expect(200)
    expect(
      log.body.map((l: { action: string; target_type: string }) => `${l.action} ${l.target_type}`),
    ).toEqual(['resolve Report', 'suspend Account', 'suspend Account'])
    expect(smtp.received.filter((m) => m.to.includes(quiet.email))).toEqual([])
  }, 60_000)
})

describe('/auth/confirmation/new', () => {
  it('sends the confirmation mail again, answers the same for any address, and is throttled', async () => {
    const user = await stack.createUser({ username: 'newbie', confirmed: false })
    const agent = request.agent(stack.url)
    const form = await agent.get('/auth/confirmation/new').expect(200)
    expect(form.text).toContain('action="/auth/confirmation"')

    const sent = await agent
      .post('/auth/confirmation')
      .type('form')
      .send({ email: user.email.toUpperCase(), csrf_token: csrfOf(form.text) })
      .expect(200)
    const mail = await smtp.next(user.email, /^Confirm your e-mail address for Roost Test Town$/)
    const link = mail.links.find((l) => l.includes('/auth/confirmation?confirmation_token='))!
    const unknown = await agent
      .post('/auth/confirmation')
      .type('form')
      .send({ email: 'nobody@example.test', csrf_token: csrfOf(form.text) })
      .expect(200)
    expect(unknown.text).toBe(sent.text)

    // Bad input: a clear error, no mail; no CSRF token: 403.
    const bad = await agent
      .post('/auth/confirmation')
      .type('form')
      .send({ email: 'not an address', csrf_token: csrfOf(form.text) })
      .expect(422)
    expect(bad.text).toContain('Enter the e-mail address you signed up with.')
    await agent.post('/auth/confirmation').type('form').send({ email: user.email }).expect(403)

    // The link confirms the account; asking again then sends nothing, with the same answer.
    await request(stack.url).get(link.slice(stack.url.length)).expect(200)
    const confirmed = await stack.accounts.ctx.db('users').where({ id: user.userId }).first('confirmed_at')
    expect(confirmed.confirmed_at).not.toBeNull()

    // Three per address in the window (RATE_LIMIT_MAIL_ACCOUNT=3/1800): the fourth is a 429.
    await agent
      .post('/auth/confirmation')
      .type('form')
      .send({ email: user.email, csrf_token: csrfOf(form.text) })
      .expect(200)
    await agent
      .post('/auth/confirmation')
      .type('form')
      .send({ email: user.email, csrf_token: csrfOf(form.text) })
      .expect(200)
    const throttled = await agent
      .post('/auth/confirmation')
      .type('form')
      .send({ email: user.email, csrf_token: csrfOf(form.text) })
      .expect(429)
    expect(throttled.text).toContain('Too many attempts')
    const confirmations = smtp.received.filter(
      (m) => m.to.includes(user.email) && m.subject.startsWith('Confirm your e-mail address'),
    )
    expect(confirmations).toHaveLength(1)
  }, 60_000)
})
