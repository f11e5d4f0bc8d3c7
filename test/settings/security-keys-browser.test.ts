import type { Browser } from 'playwright-core'
import { Secret, TOTP } from 'otpauth'
import { launchChromium } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'

/**
 * Security keys (WebAuthn) as the second factor, in headless Chromium with a virtual authenticator made through the
 * DevTools protocol (WebAuthn.addVirtualAuthenticator): added on /settings/security_keys/new, then used to sign
 * in through OAuth (docs/security.md, "Two-factor sign-in"). The server is reached as `localhost`: WebAuthn takes
 * no IP address as its relying party.
 */
let stack: Stack
let browser: Browser
beforeAll(async () => {
  stack = await startStack({ publicHost: 'localhost' })
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await stack?.stop()
})

it('adds a security key and signs in through OAuth with it', async () => {
  const user = await stack.createUser({ username: 'kim' })
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send('WebAuthn.enable')
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'usb',
        hasResidentKey: false,
        hasUserVerification: false,
        automaticPresenceSimulation: true,
      },
    })

    // Sign in for the settings, enrol TOTP (keys come on top of it), then add the key.
    await page.goto(`${stack.url}/settings/two_factor`)
    await page.getByLabel('E-mail address or username').fill(user.email)
    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click()
    const secret = (await page.textContent('#secret'))!.trim()
    const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) })
    await page.getByLabel('Code from your authenticator app').fill(totp.generate())
    await page.getByRole('button', { name: 'Enable' }).click()
    await page.waitForSelector('#recovery-codes')
    await page.goto(`${stack.url}/settings/security_keys/new`)
    await page.getByLabel('Name of the key').fill('Blue key')
    await page.getByRole('button', { name: 'Add security key' }).click()
    await page.waitForSelector('text=The security key “Blue key” was added.')
    expect(await page.locator('#security-keys li').count()).toBe(1)
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
    expect(credentials).toHaveLength(1)
    const [row] = await stack.accounts.ctx.db('webauthn_credentials').where({ user_id: user.userId })
    expect(row.nickname).toBe('Blue key')

    // OAuth sign-in in a fresh session of the same browser (the authenticator stays with the page).
    await context.clearCookies()
    const app = await stack.registerApp('read')
    const url = new URL('/oauth/authorize', stack.url)
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
      scope: 'read',
    }).toString()
    await page.goto(url.toString())
    await page.getByLabel('E-mail address or username').fill(user.email)
    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('button', { name: 'Use security key' }).click()
    await page.waitForSelector('text=Authorize Roost tests?')
    const used = await stack.accounts.ctx.db('webauthn_credentials').where({ id: row.id }).first()
    expect(used.last_used_at).not.toBeNull()
    expect(Number(used.sign_count)).toBeGreaterThan(Number(row.sign_count))

    // A forged answer (another challenge's) is refused.
    await context.clearCookies()
    await page.goto(url.toString())
    await page.getByLabel('E-mail address or username').fill(user.email)
    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page
      .locator('#key-form input[name=credential]')
      .evaluate(
        (el, value) => ((el as unknown as { value: string }).value = value),
        JSON.stringify({ id: 'x', response: {} }),
      )
    await page.locator('#key-form').evaluate((form) => (form as unknown as { submit(): void }).submit())
    await page.waitForSelector('text=The security key could not be verified.')
  } finally {
    await context.close()
  }
}, 120_000)
