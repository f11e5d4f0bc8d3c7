import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { launchChromium } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'

/**
 * A browser client on another origin, as Phanpy or Elk are: its page registers an app, signs in with the
 * authorization code flow and PKCE through a popup, then calls the API with fetch. Without CORS headers the
 * browser hides every answer from the page.
 */
const CLIENT_PAGE = `<!doctype html><meta charset="utf-8"><title>Client</title><script>
const base64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)))
  .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '')
async function json(res) {
  const body = await res.json()
  if (!res.ok) throw new Error(res.status + ' ' + JSON.stringify(body))
  return body
}
window.signIn = async (server) => {
  const redirectUri = location.origin + '/callback'
  const app = await json(await fetch(server + '/api/v1/apps', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'Browser client', redirect_uris: redirectUri, scopes: 'read write' }),
  }))
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)))
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)))
  const code = new Promise((resolve) => window.addEventListener('message', (event) => {
    if (event.origin === location.origin) resolve(event.data.code)
  }))
  const query = new URLSearchParams({ response_type: 'code', client_id: app.client_id, redirect_uri: redirectUri,
    scope: 'read write', code_challenge: challenge, code_challenge_method: 'S256' })
  window.open(server + '/oauth/authorize?' + query, 'sign-in', 'width=500,height=700')
  window.session = (async () => {
    const token = await json(await fetch(server + '/oauth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: await code, code_verifier: verifier,
        redirect_uri: redirectUri, client_id: app.client_id, client_secret: app.client_secret }),
    }))
    const auth = { Authorization: 'Bearer ' + token.access_token }
    const me = await json(await fetch(server + '/api/v1/accounts/verify_credentials', { headers: auth }))
    const posted = []
    for (const text of ['first from the browser', 'second from the browser'])
      posted.push(await json(await fetch(server + '/api/v1/statuses', {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': text },
        body: JSON.stringify({ status: text }),
      })))
    const list = await fetch(server + '/api/v1/accounts/' + me.id + '/statuses?limit=1', { headers: auth })
    const avatar = await fetch(me.avatar)
    return {
      scope: token.scope,
      username: me.username,
      posted: posted.map((s) => s.content),
      link: list.headers.get('Link'),
      requestId: list.headers.get('X-Request-Id'),
      listed: (await json(list)).map((s) => s.id),
      avatarType: avatar.headers.get('Content-Type'),
    }
  })()
}
</script>`
const CALLBACK_PAGE = `<!doctype html><meta charset="utf-8"><title>Signed in</title><script>
window.opener.postMessage({ code: new URLSearchParams(location.search).get('code') }, location.origin)
window.close()
</script>`

let stack: Stack
let browser: Browser
let client: http.Server
let clientOrigin: string
beforeAll(async () => {
  stack = await startStack()
  browser = await launchChromium()
  client = http.createServer((req, res) => {
    const page = req.url?.startsWith('/callback') ? CALLBACK_PAGE : CLIENT_PAGE
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page)
  })
  await new Promise<void>((resolve) => client.listen(0, '127.0.0.1', resolve))
  // localhost, not 127.0.0.1: another origin than the server's whatever the port.
  clientOrigin = `http://localhost:${(client.address() as AddressInfo).port}`
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => client?.close(resolve))
  await stack?.stop()
})

describe('a browser client on another origin (CORS)', () => {
  it('signs in with PKCE through a popup, reads its account, posts, and reads the Link header of a list', async () => {
    const user = await stack.createUser({ username: 'browser_user' })
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto(clientOrigin)
      const [popup] = await Promise.all([
        page.waitForEvent('popup'),
        page.evaluate(
          (server) => (globalThis as unknown as { signIn(s: string): Promise<void> }).signIn(server),
          stack.url,
        ),
      ])
      await popup.getByLabel('E-mail address or username').fill(user.email)
      await popup.getByLabel('Password').fill(user.password)
      await Promise.all([
        popup.waitForURL(/\/oauth\/authorize\?/),
        popup.getByRole('button', { name: 'Sign in' }).click(),
      ])
      await popup.getByRole('button', { name: 'Authorize' }).click()

      const result = await page.evaluate(
        () => (globalThis as unknown as { session: Promise<unknown> }).session,
      )
      expect(result).toEqual({
        scope: 'read write',
        username: 'browser_user',
        posted: ['<p>first from the browser</p>', '<p>second from the browser</p>'],
        link: expect.stringMatching(
          /<http:\/\/127\.0\.0\.1:\d+\/api\/v1\/accounts\/\d+\/statuses\?limit=1&max_id=\d+>; rel="next"/,
        ),
        requestId: expect.any(String),
        listed: [expect.any(String)],
        avatarType: 'image/png',
      })
    } finally {
      await context.close()
    }
  }, 60_000)
})
