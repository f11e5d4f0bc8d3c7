import request from 'supertest'
import { createSubscriberKeys } from '@roost/testing'
import { bearer, eventually } from '../stack'
import type { Stack } from '../stack'
import { startMailStack } from './smtp-receiver'
import type { ReceivedMail, SmtpReceiver } from './smtp-receiver'

/**
 * Password reset and change, and the sign-ups moderators must approve, through a real SMTP server on loopback
 * (issue #35): the reset link of the mail works once, within its lifetime, revokes every token of the user (and so
 * their push subscriptions); the forms refuse bad input and change nothing; a password changes only with the
 * current one.
 */
let stack: Stack
let smtp: SmtpReceiver
let stop: () => Promise<void>
beforeAll(async () => {
  ;({ smtp, stack, stop } = await startMailStack({
    env: {
      REQUIRE_EMAIL_CONFIRMATION: 'true',
      REGISTRATIONS_MODE: 'approved',
      RATE_LIMIT_SIGN_IN_IP: '1000/300',
    },
  }))
})
afterAll(async () => {
  await stop?.()
})

const RESET_SUBJECT = /^Reset your password on Roost Test Town$/
const NEW_PASSWORD = 'a brand new passphrase'

/** The form's CSRF token on a page. */
const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)![1]!

/** A browser: keeps its cookies (the visitor id the CSRF token is bound to). */
const browser = () => request.agent(stack.url)

/** The path and query of the reset link in a mail. */
function resetLink(mail: ReceivedMail) {
  const link = mail.links.find((l) => l.startsWith(`${stack.url}/auth/password/edit?reset_password_token=`))
  expect(link).toBeDefined()
  return link!.slice(stack.url.length)
}

/** Asks for a reset link on /auth/password/new, as a person does. */
async function askForReset(email: string, status: number) {
  const agent = browser()
  const form = await agent.get('/auth/password/new').expect(200)
  return agent
    .post('/auth/password')
    .type('form')
    .send({ email, csrf_token: csrfOf(form.text) })
    .expect(status)
}

/** Opens the reset link and sends the form. */
async function reset(link: string, status: number, password: string, confirmation = password) {
  const agent = browser()
  const form = await agent.get(link).expect(200)
  const token = new URL(link, stack.url).searchParams.get('reset_password_token')!
  return agent
    .post('/auth/password/edit')
    .type('form')
    .send({
      reset_password_token: token,
      password,
      password_confirmation: confirmation,
      csrf_token: csrfOf(form.text),
    })
    .expect(status)
}

/** Whether the password grant takes this password. */
async function signsIn(email: string, password: string) {
  const app = await stack.registerApp('read')
  const res = await stack.api().post('/oauth/token').send({
    grant_type: 'password',
    client_id: app.client_id,
    client_secret: app.client_secret,
    username: email,
    password,
    scope: 'read',
  })
  return res.status === 200
}

describe('sign-ups waiting for approval', () => {
  it('are announced to moderators once confirmed, and welcomed once approved', async () => {
    const mod = await stack.createUser({ username: 'mod', role: 'moderator' })
    const admin = await stack.createUser({ username: 'boss', role: 'admin' })
    const app = await stack.registerApp('read write')
    const appToken = await stack.appToken('read write', app)
    const signUp = await stack
      .api()
      .post('/api/v1/accounts')
      .set(bearer(appToken))
      .send({
        username: 'dora',
        email: 'dora@example.test',
        password: 'correct horse battery',
        agreement: true,
        locale: 'en',
        reason: 'I would like to talk about knitting',
      })
      .expect(200)
    const confirm = await smtp.next('dora@example.test', /^Confirm your e-mail address/)
    await stack.drain()
    // Not before the address is confirmed.
    expect(smtp.to(mod.email)).toEqual([])

    const link = confirm.links[0]!.slice(stack.url.length)
    await stack.api().get(link).expect(200)
    for (const staff of [mod, admin]) {
      const notice = await smtp.next(staff.email, /^New account up for review on Roost Test Town \(@dora\)$/)
      expect(notice.text).toContain('I would like to talk about knitting')
      expect(notice.text).toContain('dora@example.test')
    }
    const pending = await stack
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set(bearer(signUp.body.access_token))
      .expect(403)
    expect(pending.body).toEqual({ error: 'Your login is currently pending approval' })
    await stack.drain()
    expect(smtp.to('dora@example.test').map((m) => m.subject)).toEqual([confirm.subject])

    const adminToken = await stack.userToken('admin:read admin:write', admin)
    const dora = await stack.accounts.ctx.db('users').where({ email: 'dora@example.test' }).first()
    await stack
      .api()
      .post(`/api/v1/admin/accounts/${dora.account_id}/approve`)
      .set(bearer(adminToken))
      .expect(200)
    await smtp.next('dora@example.test', /^Welcome to Roost Test Town$/)
    await stack
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set(bearer(signUp.body.access_token))
      .expect(200)
  })
})

describe('password reset', () => {
  it('works once from the mailed link: every token revoked, push subscriptions dropped, the user told', async () => {
    const erin = await stack.createUser({ username: 'erin' })
    const token = await stack.userToken('read write push', erin)
    const keys = createSubscriberKeys()
    await stack
      .api()
      .post('/api/v1/push/subscription')
      .set(bearer(token))
      .send({
        subscription: {
          endpoint: 'https://push.example.test/erin',
          keys: { p256dh: keys.p256dh, auth: keys.auth },
        },
        data: { alerts: { mention: true } },
      })
      .expect(200)
    expect(await stack.push.db('subscriptions').where({ user_id: erin.userId })).toHaveLength(1)

    const asked = await askForReset(erin.email, 200)
    expect(asked.text).toContain('If an account uses this address')
    const mail = await smtp.next(erin.email, RESET_SUBJECT)
    expect(mail.text).toContain('Hello @erin,')
    const link = resetLink(mail)

    const done = await reset(link, 200, NEW_PASSWORD)
    expect(done.text).toContain('Your password has been changed')
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(401)
    await eventually(
      async () =>
        (await stack.push.db('subscriptions').where({ user_id: erin.userId })).length === 0 || undefined,
    )
    expect(await signsIn(erin.email, erin.password)).toBe(false)
    expect(await signsIn(erin.email, NEW_PASSWORD)).toBe(true)
    const told = await smtp.next(erin.email, /^Your password on Roost Test Town was changed$/)
    expect(told.links).toEqual([`${stack.url}/auth/password/new`])

    // Never again: neither the page nor its form take the used link.
    expect((await browser().get(link).expect(422)).text).toContain('Reset password token is invalid')
    const agent = browser()
    const form = await agent.get('/auth/password/new').expect(200)
    const token2 = new URL(link, stack.url).searchParams.get('reset_password_token')!
    const reused = await agent
      .post('/auth/password/edit')
      .type('form')
      .send({
        reset_password_token: token2,
        password: 'yet another passphrase',
        password_confirmation: 'yet another passphrase',
        csrf_token: csrfOf(form.text),
      })
      .expect(422)
    expect(reused.text).toContain('Reset password token is invalid')
    expect(await signsIn(erin.email, NEW_PASSWORD)).toBe(true)
  })

  it('answers the same whether the address has an account or not, and mails only an account', async () => {
    const known = await askForReset('erin@example.test', 200)
    const unknown = await askForReset('nobody-here@example.test', 200)
    expect(unknown.text).toBe(known.text)
    await stack.drain()
    expect(smtp.to('nobody-here@example.test')).toEqual([])
  })

  it('refuses bad input on its forms with a clear page, changing nothing', async () => {
    const finn = await stack.createUser({ username: 'finn' })
    const token = await stack.userToken('read', finn)

    // No CSRF token, or one of another visitor: 403, and no mail.
    const noCsrf = await browser().post('/auth/password').type('form').send({ email: finn.email }).expect(403)
    expect(noCsrf.text).toContain('The form has expired')
    const stranger = await browser().get('/auth/password/new').expect(200)
    await browser()
      .post('/auth/password')
      .type('form')
      .send({ email: finn.email, csrf_token: csrfOf(stranger.text) })
      .expect(403)
    // Not an address.
    const agent = browser()
    const form = await agent.get('/auth/password/new').expect(200)
    const notEmail = await agent
      .post('/auth/password')
      .type('form')
      .send({ email: 'finn', csrf_token: csrfOf(form.text) })
      .expect(422)
    expect(notEmail.text).toContain('Enter the e-mail address of your account.')
    await stack.drain()
    expect(smtp.to(finn.email)).toEqual([])

    // Only the newest link works.
    await askForReset(finn.email, 200)
    const older = resetLink(await smtp.next(finn.email, RESET_SUBJECT, 1))
    await askForReset(finn.email, 200)
    const link = resetLink(await smtp.next(finn.email, RESET_SUBJECT, 2))
    expect((await browser().get(older).expect(422)).text).toContain('Reset password token is invalid')

    // Too short, too long, not confirmed alike, no CSRF token: the link still works afterwards.
    expect((await reset(link, 422, 'short')).text).toContain(
      'Password is too short (minimum is 8 characters)',
    )
    expect((await reset(link, 422, 'x'.repeat(73))).text).toContain(
      'Password is too long (maximum is 72 characters)',
    )
    expect((await reset(link, 422, NEW_PASSWORD, 'something else')).text).toContain(
      'Password confirmation doesn&#39;t match Password',
    )
    const resetToken = new URL(link, stack.url).searchParams.get('reset_password_token')!
    await browser()
      .post('/auth/password/edit')
      .type('form')
      .send({ reset_password_token: resetToken, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD })
      .expect(403)
    await browser().get(link).expect(200)

    // Expired: refused, and says so.
    const user = await stack.accounts.ctx.db('users').where({ email: finn.email }).first()
    await stack.accounts.ctx
      .db('user_tokens')
      .where({ user_id: user.id, purpose: 'password_reset' })
      .update({ expires_at: new Date(Date.now() - 1000) })
    const expiredPage = await browser().get(link).expect(410)
    expect(expiredPage.text).toContain('Reset password token has expired, please request a new one')
    const agent2 = browser()
    const anyForm = await agent2.get('/auth/password/new').expect(200)
    const expired = await agent2
      .post('/auth/password/edit')
      .type('form')
      .send({
        reset_password_token: resetToken,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
        csrf_token: csrfOf(anyForm.text),
      })
      .expect(410)
    expect(expired.text).toContain('Reset password token has expired, please request a new one')

    // Nothing changed: the old password and the token still work.
    expect(await signsIn(finn.email, finn.password)).toBe(true)
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(200)
  })

  it('is throttled per address: the sixth request in 30 minutes gets 429', async () => {
    for (let i = 0; i < 5; i++) await askForReset('throttled@example.test', 200)
    const limited = await askForReset('throttled@example.test', 429)
    expect(limited.text).toContain('Too many attempts')
  })
})

describe('POST /api/v1/user/password_change', () => {
  it('needs the current password; the other tokens are revoked, the one used stays, and the user is told', async () => {
    const gus = await stack.createUser({ username: 'gus' })
    const used = await stack.userToken('read write', gus)
    const other = await stack.userToken('read write', gus)
    const change = (body: object) =>
      stack.api().post('/api/v1/user/password_change').set(bearer(used)).send(body)

    expect(
      (await change({ old_password: 'wrong password', new_password: NEW_PASSWORD }).expect(422)).body,
    ).toEqual({
      error: 'Validation failed: Current password is invalid',
    })
    expect((await change({ new_password: NEW_PASSWORD }).expect(422)).body.error).toBe(
      'Validation failed: Current password is invalid',
    )
    expect((await change({ old_password: gus.password, new_password: 'short' }).expect(422)).body).toEqual({
      error: 'Validation failed: Password is too short (minimum is 8 characters)',
    })
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(other)).expect(200)
    expect(await signsIn(gus.email, gus.password)).toBe(true)

    await change({ old_password: gus.password, new_password: NEW_PASSWORD }).expect(200, {})
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(used)).expect(200)
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(other)).expect(401)
    expect(await signsIn(gus.email, gus.password)).toBe(false)
    expect(await signsIn(gus.email, NEW_PASSWORD)).toBe(true)
    await smtp.next(gus.email, /^Your password on Roost Test Town was changed$/)
  })

  it('needs a user token with write:accounts', async () => {
    const hal = await stack.createUser({ username: 'hal' })
    const readOnly = await stack.userToken('read', hal)
    await stack
      .api()
      .post('/api/v1/user/password_change')
      .set(bearer(readOnly))
      .send({ old_password: hal.password, new_password: NEW_PASSWORD })
      .expect(403)
    await stack.api().post('/api/v1/user/password_change').send({}).expect(401)
    expect(await signsIn(hal.email, hal.password)).toBe(true)
  })
})
