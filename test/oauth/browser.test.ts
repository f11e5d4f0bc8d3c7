import type { Browser } from 'playwright-core'
import { launchChromium } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { pkce } from './code-flow'

let stack: Stack
let browser: Browser
beforeAll(async () => {
  stack = await startStack()
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await stack?.stop()
})

describe('authorization code with PKCE in a real browser', () => {
  it('opens /oauth/authorize through the gateway, signs in, approves, and the code buys a working token', async () => {
    // The client's redirect URI: another origin (localhost, not 127.0.0.1), as a real client's would be, on a
    // server that answers 404, so the browser can land there.
    const callback = `${stack.url.replace('127.0.0.1', 'localhost')}/client/callback`
    const app = await stack.registerApp('read write push', callback)
    const user = await stack.createUser()
    const { verifier, challenge } = pkce()
    const authorizeUrl = new URL('/oauth/authorize', stack.url)
    authorizeUrl.search = new URLSearchParams({
      response_type: 'code',
      client_id: app.client_id,
      redirect_uri: callback,
      scope: 'read push',
      state: 'browser-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString()

    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto(authorizeUrl.toString())
      await page.getByLabel('E-mail address or username').fill(user.email)
      await page.getByLabel('Password').fill(user.password)
      await Promise.all([
        page.waitForURL(/\/oauth\/authorize\?/),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ])
      expect(await page.textContent('h1')).toBe('Authorize Roost tests?')
      expect(await page.locator('li code').allTextContents()).toEqual(['read', 'push'])
      await Promise.all([
        page.waitForURL((url) => url.pathname === '/client/callback'),
        page.getByRole('button', { name: 'Authorize' }).click(),
      ])
      const landed = new URL(page.url())
      expect(landed.searchParams.get('state')).toBe('browser-state')
      const code = landed.searchParams.get('code')
      expect(code).toBeTruthy()

      const token = await stack
        .api()
        .post('/oauth/token')
        .send({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: callback,
          client_id: app.client_id,
          client_secret: app.client_secret,
        })
        .expect(200)
      expect(token.body.scope).toBe('read push')
      const verified = await stack
        .api()
        .get('/api/v1/apps/verify_credentials')
        .set('Authorization', `Bearer ${token.body.access_token}`)
        .expect(200)
      expect(verified.body.name).toBe('Roost tests')
    } finally {
      await context.close()
    }
  }, 60_000)
})
