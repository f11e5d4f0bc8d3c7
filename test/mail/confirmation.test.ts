import { bearer } from '../stack'
import type { Stack } from '../stack'
import { startMailStack } from './smtp-receiver'
import type { SmtpReceiver } from './smtp-receiver'

/**
 * E-mail confirmation through a real SMTP server on loopback (issue #35): the accounts worker sends the link over
 * SMTP with authentication, the link confirms the account once, the app it signed up with can have it sent again
 * within Mastodon's limits, a refused delivery is retried, and moderators hear of reports.
 */
let stack: Stack
let smtp: SmtpReceiver
let stop: () => Promise<void>
beforeAll(async () => {
  ;({ smtp, stack, stop } = await startMailStack({
    refuseOnce: ['flaky@example.test'],
    env: {
      REQUIRE_EMAIL_CONFIRMATION: 'true',
      // The mail throttle per address out of the way of a test that signs many up from one address.
      RATE_LIMIT_MAIL_IP: '1000/300',
    },
  }))
})
afterAll(async () => {
  await stop?.()
})

const CONFIRM_SUBJECT = /^Confirm your e-mail address for Roost Test Town$/

/** Signs up through the API, as an app does; the new user's token and the app. */
async function signUp(username: string, email = `${username}@example.test`) {
  const app = await stack.registerApp('read write')
  const appToken = await stack.appToken('read write', app)
  const res = await stack
    .api()
    .post('/api/v1/accounts')
    .set(bearer(appToken))
    .send({ username, email, password: 'correct horse battery', agreement: true, locale: 'en' })
    .expect(200)
  return { token: res.body.access_token as string, app, email, password: 'correct horse battery' }
}

/** The path and query of a link of ours (the mail holds absolute URLs on the gateway). */
const pathOf = (link: string) => {
  expect(link.startsWith(`${stack.url}/`)).toBe(true)
  return link.slice(stack.url.length)
}

const confirmationLink = (mail: { links: string[] }) => {
  const link = mail.links.find((l) => l.includes('/auth/confirmation?confirmation_token='))
  expect(link).toBeDefined()
  return pathOf(link!)
}

describe('the confirmation mail', () => {
  it('is sent over SMTP in the instance’s name, and its link confirms the account once; then the welcome', async () => {
    const ann = await signUp('ann')
    const me = await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(ann.token)).expect(403)
    expect(me.body).toEqual({ error: 'Your login is missing a confirmed e-mail address' })
    expect((await stack.api().get('/api/v1/emails/check_confirmation').set(bearer(ann.token))).body).toBe(
      false,
    )

    const mail = await smtp.next(ann.email, CONFIRM_SUBJECT)
    expect(mail.parsed.from?.value).toEqual([
      { name: 'Roost Test Town', address: 'notifications@roost.test' },
    ])
    expect(mail.text).toContain('Hello @ann,')
    const link = confirmationLink(mail)
    // Both bodies: the HTML one carries the same link, escaped.
    expect(mail.html).toContain(link.replace(/&/g, '&amp;'))
    expect(mail.html).toContain('Roost Test Town')
    // The token is kept as its digest only.
    const token = new URL(link, stack.url).searchParams.get('confirmation_token')!
    const rows = await stack.accounts.ctx.db('user_tokens').where({ purpose: 'confirmation' })
    expect(rows.map((r) => r.digest)).not.toContain(token)

    const page = await stack.api().get(link).expect(200)
    expect(page.headers['content-type']).toMatch(/text\/html/)
    expect(page.text).toContain('Your e-mail address is confirmed')
    expect(page.headers['cache-control']).toBe('no-store')
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(ann.token)).expect(200)
    expect((await stack.api().get('/api/v1/emails/check_confirmation').set(bearer(ann.token))).body).toBe(
      true,
    )

    const welcome = await smtp.next(ann.email, /^Welcome to Roost Test Town$/)
    expect(welcome.text).toContain('@ann@127.0.0.1')

    // The same link again: used, it confirms nothing more.
    const again = await stack.api().get(link).expect(422)
    expect(again.text).toContain('Confirmation token is invalid')
  })

  it('refuses unknown, missing and expired tokens with a clear page, confirming nothing', async () => {
    for (const query of [
      '?confirmation_token=nonsense-token-that-is-long-enough',
      '',
      '?confirmation_token=',
    ])
      expect((await stack.api().get(`/auth/confirmation${query}`).expect(422)).text).toContain(
        'Confirmation token is invalid',
      )
    const bea = await signUp('bea')
    const link = confirmationLink(await smtp.next(bea.email, CONFIRM_SUBJECT))
    const user = await stack.accounts.ctx.db('users').where({ email: bea.email }).first()
    await stack.accounts.ctx
      .db('user_tokens')
      .where({ user_id: user.id })
      .update({ expires_at: new Date(Date.now() - 1000) })
    const expired = await stack.api().get(link).expect(410)
    expect(expired.text).toContain('Confirmation token has expired, please request a new one')
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(bea.token)).expect(403)
  })

  it('is sent again by the app the user signed up with, while unconfirmed, at most 5 times in 30 minutes', async () => {
    const cy = await signUp('cy')
    const first = await smtp.next(cy.email, CONFIRM_SUBJECT)

    // Another app's token of the same user (the password grant: an unconfirmed user may sign in).
    const other = await stack.userToken('read write', { email: cy.email, password: cy.password })
    const foreign = await stack.api().post('/api/v1/emails/confirmations').set(bearer(other)).expect(403)
    expect(foreign.body).toEqual({
      error: 'This method is only available to the application the user originally signed-up with',
    })

    // A mistyped address is corrected: the link goes to the new one, and the first link no longer works.
    const bad = await stack
      .api()
      .post('/api/v1/emails/confirmations')
      .set(bearer(cy.token))
      .send({ email: 'not an address' })
      .expect(422)
    expect(bad.body.error).toBe('Validation failed: Email is invalid')
    await stack
      .api()
      .post('/api/v1/emails/confirmations')
      .set(bearer(cy.token))
      .send({ email: 'cy.new@example.test' })
      .expect(200, {})
    const moved = await smtp.next('cy.new@example.test', CONFIRM_SUBJECT)
    for (let i = 0; i < 3; i++)
      await stack.api().post('/api/v1/emails/confirmations').set(bearer(cy.token)).expect(200, {})
    const limited = await stack.api().post('/api/v1/emails/confirmations').set(bearer(cy.token)).expect(429)
    expect(limited.body).toEqual({ error: 'Too many requests' })
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    await stack.drain()
    // The refused calls (403, 422: the bad address counted, as it was tried) sent nothing; five links went out.
    expect(smtp.to('cy.new@example.test')).toHaveLength(4)
    expect(smtp.to(cy.email)).toHaveLength(1)

    expect((await stack.api().get(confirmationLink(first)).expect(422)).text).toContain(
      'Confirmation token is invalid',
    )
    await stack.api().get(confirmationLink(moved)).expect(200)
    const done = await stack.api().post('/api/v1/emails/confirmations').set(bearer(cy.token)).expect(403)
    expect(done.body).toEqual({
      error: 'This method is only available while the e-mail is awaiting confirmation',
    })
  })

  it('is sent again after the SMTP server refused it for a while (451)', async () => {
    await signUp('flaky', 'flaky@example.test')
    const mail = await smtp.next('flaky@example.test', CONFIRM_SUBJECT)
    expect(mail.links).toHaveLength(1)
  })
})

describe('moderators', () => {
  it('are told of a new report by mail, each in their own mail', async () => {
    const mod = await stack.createUser({ username: 'mod', role: 'moderator' })
    const admin = await stack.createUser({ username: 'boss', role: 'admin' })
    const reporter = await stack.createUser({ username: 'reporter' })
    const target = await stack.createUser({ username: 'target' })
    const token = await stack.userToken('read write', reporter)
    const report = await stack
      .api()
      .post('/api/v1/reports')
      .set(bearer(token))
      .send({ account_id: target.accountId, comment: 'spam, spam, spam' })
      .expect(200)
    for (const staff of [mod, admin]) {
      const mail = await smtp.next(
        staff.email,
        new RegExp(`^New report for Roost Test Town \\(#${report.body.id}\\)$`),
      )
      expect(mail.to).toEqual([staff.email])
      expect(mail.text).toContain('@reporter has reported @target')
      expect(mail.text).toContain('spam, spam, spam')
    }
    await stack.drain()
    expect(smtp.to(reporter.email)).toEqual([])
    expect(smtp.to(target.email)).toEqual([])
  })
})
