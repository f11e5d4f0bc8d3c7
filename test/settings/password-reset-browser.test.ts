import type { Browser } from 'playwright-core'
import { launchChromium } from '@roost/testing'
import { bearer } from '../stack'
import type { Stack } from '../stack'
import { startMailStack } from '../mail/smtp-receiver'
import type { SmtpReceiver } from '../mail/smtp-receiver'

/**
 * A forgotten password, as a person meets it (issue #35; docs/security.md, "Links sent by mail"): in headless
 * Chromium, the request page, the link read back from a real SMTP server on loopback, the new password, then an
 * OAuth sign-in with it; the link works once, and the old password and the old token are done.
 */
const NEW_PASSWORD = 'a brand new passphrase'
let stack: Stack
let smtp: SmtpReceiver
let stop: () => Promise<void>
let browser: Browser
beforeAll(async () => {
  ;({ smtp, stack, stop } = await startMailStack({
    rateLimits: false,
  }))
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await stop?.()
})

it('resets a forgotten password from the mail’s link, once, then signs in through OAuth with it', async () => {
  const user = await stack.createUser({ username: 'forgetful' })
  const oldToken = await stack.userToken('read', user)
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    await page.goto(`${stack.url}/auth/password/new`)
    await page.getByLabel('E-mail address').fill(user.email)
    await page.getByRole('button', { name: 'Send me a link' }).click()
    expect(await page.textContent('h1')).toBe('Check your mail')

    const mail = await smtp.next(user.email, /^Reset your password on /)
    const link = mail.links.find((l) =>
      l.startsWith(`${stack.url}/auth/password/edit?reset_password_token=`),
    )!
    expect(link).toBeDefined()
    await page.goto(link)
    await page.getByLabel('New password (8 to 72 characters)').fill(NEW_PASSWORD)
    await page.getByLabel('The new password again').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change my password' }).click()
    expect(await page.textContent('h1')).toBe('Your password has been changed')
    // Every token of the old password is revoked.
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(oldToken)).expect(401)

    // The link works once.
    await page.goto(link)
    expect(await page.textContent('h1')).not.toBe('Choose a new password')
    expect(await page.textContent('[role=alert]')).toBeTruthy()

    // OAuth with the old password: refused; with the new one: a working token.
    const app = await stack.registerApp('read')
    const authorize = new URL('/oauth/authorize', stack.url)
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
      scope: 'read',
    }).toString()
    const signIn = await context.newPage()
    await signIn.goto(authorize.toString())
    await signIn.getByLabel('E-mail address or username').fill(user.email)
    await signIn.getByLabel('Password').fill(user.password)
    await signIn.getByRole('button', { name: 'Sign in' }).click()
    expect(await signIn.textContent('[role=alert]')).toBe('Invalid e-mail address or password.')
    await signIn.getByLabel('E-mail address or username').fill(user.email)
    await signIn.getByLabel('Password').fill(NEW_PASSWORD)
    await signIn.getByRole('button', { name: 'Sign in' }).click()
    await signIn.getByRole('button', { name: 'Authorize' }).click()
    const code = (await signIn.textContent('#code'))!
    const token = await stack
      .api()
      .post('/oauth/token')
      .send({
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
        client_id: app.client_id,
        client_secret: app.client_secret,
      })
      .expect(200)
    const me = await stack
      .api()
      .get('/api/v1/accounts/verify_credentials')
      .set(bearer(token.body.access_token))
      .expect(200)
    expect(me.body.username).toBe('forgetful')
  } finally {
    await context.close()
  }
}, 120_000)
