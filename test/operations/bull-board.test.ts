import { launchChromium } from '@roost/testing'
import { QUEUES } from '@roost/events'
import { startStack } from '../stack'
import type { Stack } from '../stack'

const QUEUE_NAMES = Object.values(QUEUES)

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

describe('Bull Board at /admin/queues', () => {
  it('answers 401 to an API client without a token, and sends a browser to sign in', async () => {
    const api = await stack.api().get('/admin/queues/api/queues').set('Accept', 'application/json')
    expect(api.status).toBe(401)
    expect(api.body).toEqual({ error: 'The access token is invalid' })

    const page = await stack.api().get('/admin/queues').set('Accept', 'text/html')
    expect(page.status).toBe(302)
    expect(page.headers.location).toBe('/admin/queues/login')

    const login = await stack.api().get('/admin/queues/login').expect(302)
    const authorize = new URL(login.headers.location!, stack.url)
    expect(authorize.pathname).toBe('/oauth/authorize')
    expect(authorize.searchParams.get('scope')).toBe('admin:read')
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
    expect(login.headers['set-cookie']?.[0]).toMatch(/HttpOnly; SameSite=Lax/)
  })

  it('refuses a non-admin token with 403 and a forged one with 401', async () => {
    const userToken = await stack.userToken('read write')
    const res = await stack
      .api()
      .get('/admin/queues/api/queues')
      .set('Authorization', `Bearer ${userToken}`)
      .expect(403)
    expect(res.body).toEqual({ error: 'This action is outside the authorized scopes' })

    await stack
      .api()
      .get('/admin/queues/api/queues')
      .set('Authorization', `Bearer ${userToken.slice(0, -4)}AAAA`)
      .expect(401)
  })

  it('serves every queue to a token whose role holds view_devops (the Owner), read-only', async () => {
    // The Admin role, as Mastodon's, has no view_devops: 403.
    const mere = await stack.userToken(
      'admin:read',
      await stack.createUser({ username: 'mere', role: 'admin' }),
    )
    await stack.api().get('/admin/queues/api/queues').set('Authorization', `Bearer ${mere}`).expect(403)
    const admin = await stack.createUser({ username: 'boss', role: 'owner' })
    const token = await stack.userToken('admin:read', admin)
    const res = await stack
      .api()
      .get('/admin/queues/api/queues')
      .set('Authorization', `Bearer ${token}`)
      .expect(200)
    const queues = res.body.queues as { name: string; readOnlyMode: boolean }[]
    expect(queues.map((q) => q.name).sort()).toEqual([...QUEUE_NAMES].sort())
    expect(queues.every((q) => q.readOnlyMode)).toBe(true)

    // Changes need admin:write, which the read-only board never asks for.
    await stack
      .api()
      .put('/admin/queues/api/queues/notifications/pause')
      .set('Authorization', `Bearer ${token}`)
      .expect(403)
  })

  it('lets an admin sign in with a browser and shows the queues', async () => {
    const admin = await stack.createUser({ username: 'chief', role: 'owner' })
    // Only this test drives a browser: the API tests above do not depend on Chromium starting.
    const browser = await launchChromium()
    try {
      const context = await browser.newContext()
      const page = await context.newPage()
      await page.goto(`${stack.url}/admin/queues`)
      await page.waitForURL(/\/oauth\/authorize/)
      await page.fill('#email', admin.email)
      await page.fill('#password', admin.password)
      await page.click('button[type=submit]')
      await page.click('button[value=approve]')
      await page.waitForURL(`${stack.url}/admin/queues/`)
      for (const name of QUEUE_NAMES) await page.getByText(name, { exact: true }).first().waitFor()

      const cookies = await context.cookies()
      const tokenCookie = cookies.find((c) => c.name === 'roost_admin_token')
      expect(tokenCookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/admin/queues' })
    } finally {
      await browser.close()
    }
  }, 180_000)
})
