import type { Browser, BrowserContext, Page } from 'playwright-core'
import { Secret, TOTP } from 'otpauth'
import request from 'supertest'
import { createSubscriberKeys, launchChromium } from '@roost/testing'
import { bearer, eventually } from '../stack'
import type { Stack } from '../stack'
import { startMailStack } from '../mail/smtp-receiver'
import type { SmtpReceiver } from '../mail/smtp-receiver'

/**
 * Two-factor sign-in, the apps and sessions page and the change of e-mail address in headless Chromium, with the
 * mails read back from a real SMTP server on loopback (issue #35; docs/security.md, "Two-factor sign-in",
 * "Sessions and apps", "Changing the e-mail address").
 */
let stack: Stack
let smtp: SmtpReceiver
let stop: () => Promise<void>
let browser: Browser
beforeAll(async () => {
  ;({ smtp, stack, stop } = await startMailStack({
    env: {
      REQUIRE_STAFF_TWO_FACTOR: 'true',
      RATE_LIMIT_SIGN_IN_IP: '1000/300',
      RATE_LIMIT_SIGN_IN_ACCOUNT: '6/300',
    },
  }))
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await stop?.()
})

const totp = (secret: string) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) })

/** Signs in on /auth/sign_in after being sent there from a settings page. */
async function signInForSettings(page: Page, path: string, user: { email: string; password: string }) {
  await page.goto(`${stack.url}${path}`)
  expect(new URL(page.url()).pathname).toBe('/auth/sign_in')
  await page.getByLabel('E-mail address or username').fill(user.email)
  await page.getByLabel('Password').fill(user.password)
  await Promise.all([
    page.waitForURL((url) => url.pathname === path),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ])
}

/** The out-of-band authorization URL of a new app. */
async function authorizeUrl(scope = 'read write') {
  const app = await stack.registerApp(scope)
  const url = new URL('/oauth/authorize', stack.url)
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: app.client_id,
    redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
    scope,
  }).toString()
  return { app, url: url.toString() }
}

/** Signs in on the OAuth page with the password, answers the second step with `code`. */
async function oauthSignIn(context: BrowserContext, user: { email: string; password: string }, url: string) {
  const page = await context.newPage()
  await page.goto(url)
  await page.getByLabel('E-mail address or username').fill(user.email)
  await page.getByLabel('Password').fill(user.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForSelector('text=Two-factor authentication')
  return page
}

async function answerCode(page: Page, code: string) {
  await page.getByLabel(/Enter the code from your authenticator app/).fill(code)
  await page.getByRole('button', { name: 'Verify' }).click()
  await page.waitForLoadState()
}

describe('two-factor sign-in', () => {
  it('enrols TOTP in a browser, then signs in through OAuth with a code and with a recovery code that works once', async () => {
    const user = await stack.createUser({ username: 'tess' })
    let context = await browser.newContext()
    let secret: string
    let codes: string[]
    try {
      const page = await context.newPage()
      await signInForSettings(page, '/settings/two_factor', user)
      expect(await page.textContent('#state')).toBe('off')
      await page.getByRole('button', { name: 'Set up two-factor authentication' }).click()
      secret = (await page.textContent('#secret'))!.trim()
      expect(await page.getAttribute('#qr', 'src')).toMatch(/^data:image\/svg\+xml;base64,/)
      expect(await page.getAttribute('#qr', 'alt')).toContain(`otpauth://totp/`)

      // A wrong code: an error, still off.
      await page.getByLabel('Code from your authenticator app').fill('000000')
      await page.getByRole('button', { name: 'Enable' }).click()
      expect(await page.textContent('[role=alert]')).toBe('Invalid two-factor authentication code.')
      const still = await stack.accounts.ctx.db('users').where({ id: user.userId }).first()
      expect(still.otp_enabled_at).toBeNull()

      await page.getByLabel('Code from your authenticator app').fill(totp(secret).generate())
      await page.getByRole('button', { name: 'Enable' }).click()
      codes = await page.locator('#recovery-codes code').allTextContents()
      expect(codes).toHaveLength(10)
      expect(new Set(codes).size).toBe(10)
    } finally {
      await context.close()
    }
    const stored = await stack.accounts.ctx.db('users').where({ id: user.userId }).first()
    expect(stored.otp_backup_codes).toHaveLength(10)
    expect(stored.otp_backup_codes.join(' ')).not.toContain(codes[0]!)
    const enabled = await smtp.next(user.email, /^Two-factor authentication enabled on Roost Test Town$/)
    expect(enabled.text).toContain('Hello @tess,')

    // The password grant no longer opens the account.
    const app = await stack.registerApp('read')
    await stack
      .api()
      .post('/oauth/token')
      .send({
        grant_type: 'password',
        client_id: app.client_id,
        client_secret: app.client_secret,
        username: user.email,
        password: user.password,
        scope: 'read',
      })
      .expect(400)

    // OAuth: a wrong code, the enrolment's code again (used), then the next step's code.
    const { app: client, url } = await authorizeUrl()
    context = await browser.newContext()
    try {
      const page = await oauthSignIn(context, user, url)
      await answerCode(page, '123456')
      expect(await page.textContent('[role=alert]')).toBe('Invalid two-factor authentication code.')
      await answerCode(page, totp(secret).generate({ timestamp: Date.now() - 30_000 }))
      expect(await page.textContent('[role=alert]')).toBe('Invalid two-factor authentication code.')
      await answerCode(page, totp(secret).generate({ timestamp: Date.now() + 30_000 }))
      expect(await page.textContent('h1')).toBe('Authorize Roost tests?')
      await page.getByRole('button', { name: 'Authorize' }).click()
      const code = (await page.textContent('#code'))!
      const token = await stack
        .api()
        .post('/oauth/token')
        .send({
          grant_type: 'authorization_code',
          code,
          redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
          client_id: client.client_id,
          client_secret: client.client_secret,
        })
        .expect(200)
      const me = await stack
        .api()
        .get('/api/v1/accounts/verify_credentials')
        .set(bearer(token.body.access_token))
        .expect(200)
      expect(me.body.username).toBe('tess')
    } finally {
      await context.close()
    }

    // A recovery code works once.
    for (const [round, expected] of [
      [1, 'Authorize Roost tests?'],
      [2, 'Two-factor authentication'],
    ] as const) {
      context = await browser.newContext()
      try {
        const page = await oauthSignIn(context, user, url)
        await answerCode(page, codes[0]!.toUpperCase())
        expect(await page.textContent('h1')).toBe(expected)
        if (round === 2)
          expect(await page.textContent('[role=alert]')).toBe('Invalid two-factor authentication code.')
      } finally {
        await context.close()
      }
    }
    const after = await stack.accounts.ctx.db('users').where({ id: user.userId }).first()
    expect(after.otp_backup_codes).toHaveLength(9)
  }, 120_000)

  it('turns off with a code only, refuses forms without their CSRF token, and throttles wrong codes', async () => {
    const user = await stack.createUser({ username: 'toby' })
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await signInForSettings(page, '/settings/two_factor', user)
      await page.getByRole('button', { name: 'Set up two-factor authentication' }).click()
      const secret = (await page.textContent('#secret'))!.trim()
      await page.getByLabel('Code from your authenticator app').fill(totp(secret).generate())
      await page.getByRole('button', { name: 'Enable' }).click()
      const codes = await page.locator('#recovery-codes code').allTextContents()
      await page.goto(`${stack.url}/settings/two_factor`)
      expect(await page.textContent('#state')).toBe('on')

      // A form without its CSRF token: 403, nothing changes.
      const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
      const forged = await request(stack.url)
        .post('/settings/two_factor/disable')
        .set('Cookie', cookies)
        .type('form')
        .send({ code: codes[1] })
        .expect(403)
      expect(forged.text).toContain('The form was sent without its security token')

      // Wrong codes: a clear error each, then 429 once the budget (6 per 5 minutes) is spent, even for a right one.
      const form = page.locator('form[action="/settings/two_factor/disable"]')
      for (let i = 0; i < 6; i++) {
        await form.getByLabel('Code from your authenticator app, or a recovery code').fill('zzzzz-zzzzz')
        await form.getByRole('button').click()
        await page.waitForLoadState()
        expect(await page.textContent('[role=alert]')).toBe('Invalid two-factor authentication code.')
      }
      const throttled = await request(stack.url)
        .post('/settings/two_factor/disable')
        .set('Cookie', cookies)
        .type('form')
        .send({ code: codes[0], csrf_token: await page.getAttribute('input[name=csrf_token]', 'value') })
        .expect(429)
      expect(throttled.text).toContain('Too many attempts')
      const still = await stack.accounts.ctx.db('users').where({ id: user.userId }).first()
      expect(still.otp_enabled_at).not.toBeNull()
      expect(still.otp_backup_codes).toHaveLength(10)

      // Once the window is over (its keys gone), a recovery code turns it off, and the user is told.
      const keys = await stack.accounts.ctx.redis.keys(
        `${stack.env.REDIS_PREFIX}:sign-in-failures:account:two-factor:${user.userId}:*`,
      )
      expect(keys.length).toBeGreaterThan(0)
      await stack.accounts.ctx.redis.del(...keys)
      await page.goto(`${stack.url}/settings/two_factor`)
      await form.getByLabel('Code from your authenticator app, or a recovery code').fill(codes[0]!)
      await form.getByRole('button').click()
      await page.waitForLoadState()
      expect(await page.textContent('#state')).toBe('off')
      await smtp.next(user.email, /^Two-factor authentication disabled on Roost Test Town$/)
    } finally {
      await context.close()
    }
  }, 120_000)

  it('sends a moderator without two-factor sign-in to enrol before authorizing an app', async () => {
    const mod = await stack.createUser({ username: 'mona', role: 'moderator' })
    const { url } = await authorizeUrl('read')
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto(url)
      await page.getByLabel('E-mail address or username').fill(mod.email)
      await page.getByLabel('Password').fill(mod.password)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.waitForURL((u) => u.pathname === '/settings/two_factor')
      expect(await page.textContent('[role=alert]')).toContain('requires two-factor authentication')
      await page.getByRole('button', { name: 'Set up two-factor authentication' }).click()
      const secret = (await page.textContent('#secret'))!.trim()
      await page.getByLabel('Code from your authenticator app').fill(totp(secret).generate())
      await page.getByRole('button', { name: 'Enable' }).click()
      await page.getByRole('link', { name: 'Continue' }).click()
      await page.waitForURL((u) => u.pathname === '/oauth/authorize')
      expect(await page.textContent('h1')).toBe('Authorize Roost tests?')
    } finally {
      await context.close()
    }
  }, 120_000)
})

describe('apps and sessions', () => {
  it('lists the apps holding a token and revokes one: its token refused, its push subscription gone', async () => {
    const user = await stack.createUser({ username: 'sam' })
    const token = await stack.userToken('read write push', user)
    const other = await stack.userToken('read', user)
    const keys = createSubscriberKeys()
    await stack
      .api()
      .post('/api/v1/push/subscription')
      .set(bearer(token))
      .send({
        subscription: {
          endpoint: 'https://push.example.test/sam',
          keys: { p256dh: keys.p256dh, auth: keys.auth },
        },
        data: { alerts: { mention: true } },
      })
      .expect(200)
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(200)
    const [tokenRow] = await stack.accounts.ctx
      .db('oauth_access_tokens')
      .where({ user_id: user.userId, scopes: 'read write push' })
    expect(tokenRow.last_used_at).not.toBeNull()

    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await signInForSettings(page, '/settings/sessions', user)
      const rows = page.locator('#apps tbody tr')
      expect(await rows.count()).toBe(2)
      const row = page.locator(`tr[data-application-id="${tokenRow.application_id}"]`)
      expect(await row.locator('code').allTextContents()).toEqual(['read', 'write', 'push'])
      expect(await row.locator('td').nth(3).textContent()).toMatch(/UTC$/)
      await row.getByRole('button', { name: 'Revoke' }).click()
      await page.waitForLoadState()
      expect(await page.textContent('[role=status]')).toBe('Roost tests was signed out of your account.')
      expect(await page.locator('#apps tbody tr').count()).toBe(1)
    } finally {
      await context.close()
    }
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(401)
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(other)).expect(200)
    await eventually(
      async () =>
        (await stack.push.db('subscriptions').where({ user_id: user.userId })).length === 0 || undefined,
    )

    // Without its CSRF token, or for an app without tokens: refused, nothing revoked.
    const agent = request.agent(stack.url)
    const signIn = await agent.get('/auth/sign_in').expect(200)
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(signIn.text)![1]
    await agent
      .post('/auth/sign_in')
      .type('form')
      .send({ action: 'sign_in', email: user.email, password: user.password, csrf_token: csrf })
      .expect(303)
    const otherApp = await stack.accounts.ctx
      .db('oauth_access_tokens')
      .where({ user_id: user.userId })
      .whereNull('revoked_at')
      .first()
    await agent
      .post('/settings/sessions/revoke')
      .type('form')
      .send({ application_id: otherApp.application_id })
      .expect(403)
    const page = await agent.get('/settings/sessions').expect(200)
    const csrf2 = /name="csrf_token" value="([^"]+)"/.exec(page.text)![1]
    const missing = await agent
      .post('/settings/sessions/revoke')
      .type('form')
      .send({ application_id: '1', csrf_token: csrf2 })
      .expect(404)
    expect(missing.text).toContain('This application holds no token of yours.')
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(other)).expect(200)
    // Without a session: to the sign-in page.
    const anonymous = await request(stack.url).get('/settings/sessions').expect(303)
    expect(anonymous.headers.location).toBe('/auth/sign_in?return_to=%2Fsettings%2Fsessions')
  }, 120_000)

  it('mails a sign-in from an address not seen lately', async () => {
    const user = await stack.createUser({ username: 'nina' })
    await stack.accounts.ctx
      .db('user_sign_ins')
      .insert({ user_id: user.userId, ip: '192.0.2.7', user_agent: 'Old browser' })
    const context = await browser.newContext({ userAgent: 'Roost test browser/1.0' })
    try {
      const page = await context.newPage()
      await signInForSettings(page, '/settings/sessions', user)
    } finally {
      await context.close()
    }
    const mail = await smtp.next(
      user.email,
      /^Your Roost Test Town account has been accessed from a new IP address$/,
    )
    expect(mail.text).toContain('127.0.0.1')
    expect(mail.text).toContain('Roost test browser/1.0')
    // The same address again: no second mail.
    const again = await browser.newContext()
    try {
      await signInForSettings(await again.newPage(), '/settings/sessions', user)
    } finally {
      await again.close()
    }
    await stack.drain()
    expect(smtp.to(user.email).filter((m) => /new IP address/.test(m.subject))).toHaveLength(1)
    expect(await stack.accounts.ctx.db('user_sign_ins').where({ user_id: user.userId })).toHaveLength(3)
  }, 120_000)
})

describe('changing the e-mail address', () => {
  it('needs the password, confirms the new address from its mail, and warns the old one', async () => {
    const user = await stack.createUser({ username: 'eve' })
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await signInForSettings(page, '/settings/email', user)
      expect(await page.textContent('#email')).toBe('eve@example.test')

      await page.getByLabel('New e-mail address').fill('eve.new@example.test')
      await page.getByLabel('Current password').fill('not my password')
      await page.getByRole('button', { name: 'Change my e-mail address' }).click()
      await page.waitForLoadState()
      expect(await page.textContent('[role=alert]')).toBe('Current password is invalid.')
      expect(
        (await stack.accounts.ctx.db('users').where({ id: user.userId }).first()).unconfirmed_email,
      ).toBeNull()

      await page.getByLabel('New e-mail address').fill('eve.new@example.test')
      await page.getByLabel('Current password').fill(user.password)
      await page.getByRole('button', { name: 'Change my e-mail address' }).click()
      await page.waitForLoadState()
      expect(await page.textContent('[role=status]')).toContain('A link was sent to eve.new@example.test')
      // Not changed yet.
      expect((await stack.accounts.ctx.db('users').where({ id: user.userId }).first()).email).toBe(
        'eve@example.test',
      )

      const warning = await smtp.next(
        'eve@example.test',
        /^The e-mail address of your Roost Test Town account is changing$/,
      )
      expect(warning.text).toContain('eve.new@example.test')
      const confirm = await smtp.next(
        'eve.new@example.test',
        /^Confirm your new e-mail address for Roost Test Town$/,
      )
      const link = confirm.links.find((l) =>
        l.startsWith(`${stack.url}/auth/confirmation?confirmation_token=`),
      )!
      expect(link).toBeDefined()
      await page.goto(link)
      expect(await page.textContent('h1')).toBe('Your e-mail address is confirmed')
      const changed = await stack.accounts.ctx.db('users').where({ id: user.userId }).first()
      expect(changed.email).toBe('eve.new@example.test')
      expect(changed.unconfirmed_email).toBeNull()
      // The link works once.
      await page.goto(link)
      expect(await page.textContent('h1')).toBe('This link does not work')
      await page.goto(`${stack.url}/settings/email`)
      expect(await page.textContent('#email')).toBe('eve.new@example.test')
    } finally {
      await context.close()
    }
  }, 120_000)
})
