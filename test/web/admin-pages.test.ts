import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { ROUTES, WEB_PAGES } from '@roost/routes'
import { createSubscriberKeys } from '@roost/testing'
import { recordFailure } from '../../apps/accounts/src/federation/transport/delivery-failures'
import { ADMIN_ROUTES } from '../admin/admin-routes'
import { accessible, RATE_LIMITS_ON, settled, startWebBrowser } from './browser'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'

/**
 * The admin pages of the web app (apps/web/src/pages/admin; docs/architecture.md, "The web app") driven in headless
 * Chromium as a member of staff uses them, through the gateway with its rate limits and CSP on, each change checked
 * through the API: an announcement published, a rule added and edited, e-mail blocks, a server allowed in limited
 * federation, a role edited and deleted, an IP rule, the known servers, moderation notes on an account and a
 * report, an account unsubscribed from push, trends paged by their Link header, the dashboard's days. Every API
 * call the pages make is recorded: each admin one must be an admin route of the table with a permission, which
 * test/admin/permissions.test.ts checks per permission. (The sign-up, settings and report flows are test/web/web-app-browser.test.ts.)
 */

let stack: Stack
let web: Awaited<ReturnType<typeof startWebBrowser>>
let page: Page
let ownerToken: string
let userToken: string
/** Every API call the pages made: `METHOD /path`. */
const calls = new Set<string>()
/** The pages opened, by their WEB_PAGES path. */
const opened = new Set<string>()

beforeAll(async () => {
  stack = await startStack({
    env: {
      ...RATE_LIMITS_ON,
      RATE_LIMIT_STATUSES: '1000/300',
    },
  })
  web = await startWebBrowser()
  page = await web.person()
  const origin = new URL(stack.url).origin
  page.on('request', (request) => {
    const url = new URL(request.url())
    if (url.origin === origin && url.pathname.startsWith('/api/'))
      calls.add(`${request.method()} ${url.pathname}`)
  })
  const owner = await stack.createUser({ username: 'chief', role: 'owner' })
  ownerToken = await stack.userToken('read admin:read admin:write', owner)
  userToken = await stack.userToken('read write')
  await page.goto(`${stack.url}/admin`)
  await page.waitForURL(/\/oauth\/authorize\?/)
  await page.getByLabel('E-mail address or username').fill(owner.email)
  await page.getByLabel('Password').fill(owner.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('button', { name: 'Authorize' }).click()
  await page.waitForURL((url) => url.pathname === '/admin')
}, 90_000)
afterAll(async () => {
  await web?.close()
  await stack?.stop()
})

const asOwner = (url: string) => stack.api().get(url).set(bearer(ownerToken)).expect(200)

/** Opens an admin page and waits until it is drawn and nothing is loading any more; axe-core finds nothing serious. */
async function open(pathname: string, heading: string) {
  opened.add(pathname.replace(/\/\d+$/, '/:id'))
  await page.goto(`${stack.url}${pathname}`)
  await settled(page, heading)
  await accessible(page)
}

describe('the admin pages in a browser', () => {
  it('publishes an announcement that users then read', async () => {
    await open('/admin/announcements', 'Announcements')
    await page.getByText('Write an announcement').click()
    await page.getByLabel('Text').fill('The server moves on Sunday night.')
    await page.getByLabel('Publish now').uncheck()
    await page.getByRole('button', { name: 'Save announcement' }).click()
    const item = page.getByRole('listitem').filter({ hasText: 'The server moves on Sunday night.' })
    await item.getByText('draft').waitFor()
    const read = async () =>
      (await stack.api().get('/api/v1/announcements').set(bearer(userToken)).expect(200)).body.map(
        (a: { content: string }) => a.content,
      )
    expect((await read()).join()).not.toContain('Sunday night')
    await item.getByRole('button', { name: /^Publish “The server moves/ }).click()
    await item.getByText('published').waitFor()
    expect((await read()).join()).toContain('The server moves on Sunday night.')
  }, 60_000)

  it('adds a rule and edits it, as /api/v1/instance/rules then says', async () => {
    await open('/admin/rules', 'Server rules')
    await page.getByText('Add a rule').click()
    const add = page.getByRole('form', { name: 'Add a rule' })
    await add.getByLabel('Rule').fill('No spam')
    await add.getByLabel('Explanation').fill('Nothing posted for gain alone.')
    await add.getByRole('button', { name: 'Add rule' }).click()
    const rules = page.getByRole('list', { name: 'Rules' })
    await rules.getByText('No spam', { exact: true }).waitFor()
    const instanceRules = async () =>
      (await stack.api().get('/api/v1/instance/rules').expect(200)).body.map(
        (r: { text: string; hint: string }) => [r.text, r.hint],
      )
    expect(await instanceRules()).toEqual([['No spam', 'Nothing posted for gain alone.']])

    await rules.getByText('Edit the rule').click()
    const edit = page.getByRole('form', { name: 'Edit the rule No spam' })
    await edit.getByLabel('Rule').fill('No spam, no scams')
    await edit.getByRole('button', { name: 'Save rule' }).click()
    await rules.getByText('No spam, no scams', { exact: true }).waitFor()
    expect(await instanceRules()).toEqual([['No spam, no scams', 'Nothing posted for gain alone.']])
  }, 60_000)

  it('blocks an e-mail domain and an address, and lifts both', async () => {
    await open('/admin/email_domain_blocks', 'Blocked e-mail domains')
    await page.getByRole('textbox', { name: 'E-mail domain' }).fill('junk.example')
    await page.getByRole('button', { name: 'Block', exact: true }).click()
    await page.getByRole('button', { name: 'Unblock junk.example' }).waitFor()
    const domains = async () =>
      (await asOwner('/api/v1/admin/email_domain_blocks')).body.map((b: { domain: string }) => b.domain)
    expect(await domains()).toEqual(['junk.example'])
    await page.getByRole('button', { name: 'Unblock junk.example' }).click()
    await page.getByText('No e-mail domain is blocked.').waitFor()
    expect(await domains()).toEqual([])

    await open('/admin/canonical_email_blocks', 'Blocked e-mail addresses')
    await page.getByRole('textbox', { name: 'E-mail address', exact: true }).fill('troll@example.com')
    await page.getByRole('button', { name: 'Block', exact: true }).click()
    await page.getByRole('button', { name: /^Unblock the address/ }).waitFor()
    // Its variants are blocked too: the API's test and the page's say so.
    const matches = async (email: string) =>
      (
        await stack
          .api()
          .post('/api/v1/admin/canonical_email_blocks/test')
          .set(bearer(ownerToken))
          .send({ email })
          .expect(200)
      ).body.length
    expect(await matches('t.roll+again@example.com')).toBe(1)
    await page.getByLabel('Address to test').fill('t.roll+again@example.com')
    await page.getByRole('button', { name: 'Test' }).click()
    await page.getByText('t.roll+again@example.com is blocked.').waitFor()
    await page.getByRole('button', { name: /^Unblock the address/ }).click()
    await page.getByText('No e-mail address is blocked.').waitFor()
    expect(await matches('troll@example.com')).toBe(0)
    expect((await asOwner('/api/v1/admin/canonical_email_blocks')).body).toEqual([])
  }, 60_000)

  it('allows a server and turns limited federation on and off from the settings page', async () => {
    await open('/admin/domain_allows', 'Allowed servers')
    await page.getByLabel('Domain').fill('friends.example')
    await page.getByRole('button', { name: 'Allow', exact: true }).click()
    await page.getByRole('button', { name: 'Stop allowing friends.example' }).waitFor()
    const allowed = async () =>
      (await asOwner('/api/v1/admin/domain_allows')).body.map((a: { domain: string }) => a.domain)
    expect(await allowed()).toEqual(['friends.example'])

    const limited = async () =>
      (await stack.api().get('/api/v2/instance').expect(200)).body.configuration.limited_federation
    expect(await limited()).toBe(false)
    await page.getByRole('link', { name: 'server settings', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Server settings' }).waitFor()
    await page.getByLabel('Limited federation mode').check()
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Settings saved.').waitFor()
    expect(await limited()).toBe(true)
    await page.getByLabel('Limited federation mode').uncheck()
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Settings saved.').waitFor()
    expect(await limited()).toBe(false)

    await open('/admin/domain_allows', 'Allowed servers')
    await page.getByRole('button', { name: 'Stop allowing friends.example' }).click()
    await page.getByText('No server is allowed.').waitFor()
    expect(await allowed()).toEqual([])
  }, 60_000)

  it('edits a role and deletes it', async () => {
    const created = await stack
      .api()
      .post('/api/v1/admin/roles')
      .set(bearer(ownerToken))
      .send({ name: 'Tester', position: 5, permissions: '0' })
      .expect(200)
    await open('/admin/roles', 'Roles')
    await page.getByText('Edit Tester').click()
    const edit = page.getByRole('form', { name: 'Edit the role Tester' })
    await edit.getByLabel('Name').fill('Reviewer')
    await edit.getByLabel('Manage reports').check()
    await edit.getByLabel('View the audit log').check()
    await edit.getByRole('button', { name: 'Save role' }).click()
    const roles = page.getByRole('list', { name: 'Roles' })
    await roles.getByText('Reviewer', { exact: true }).waitFor()
    const role = await asOwner(`/api/v1/admin/roles/${created.body.id}`)
    expect(role.body).toMatchObject({ name: 'Reviewer', permissions: '20' })

    await page.getByText('Edit Reviewer').click()
    await page.getByRole('button', { name: 'Delete the role Reviewer' }).click()
    await roles.getByText('Reviewer', { exact: true }).waitFor({ state: 'detached' })
    await stack.api().get(`/api/v1/admin/roles/${created.body.id}`).set(bearer(ownerToken)).expect(404)
  }, 60_000)

  it('adds an IP rule and removes it', async () => {
    await open('/admin/ip_blocks', 'IP rules')
    await page.getByText('Add a rule').click()
    await page.getByLabel('Address or range (CIDR)').fill('203.0.113.0/24')
    await page.getByLabel('Rule', { exact: true }).selectOption('sign_up_block')
    await page.getByLabel('Comment').fill('A sign-up farm')
    await page.getByLabel('Expires').selectOption('86400')
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.getByRole('button', { name: 'Remove rule 203.0.113.0/24' }).waitFor()
    const [block] = (await asOwner('/api/v1/admin/ip_blocks')).body
    expect(block).toMatchObject({
      ip: '203.0.113.0/24',
      severity: 'sign_up_block',
      comment: 'A sign-up farm',
    })
    expect(Date.parse(block.expires_at) - Date.now()).toBeGreaterThan(86_000_000)
    await page.getByRole('button', { name: 'Remove rule 203.0.113.0/24' }).click()
    await page.getByText('No IP rules.').waitFor()
    expect((await asOwner('/api/v1/admin/ip_blocks')).body).toEqual([])
  }, 60_000)

  it('shows the known servers with their accounts and delivery health, paged as the API gives them', async () => {
    const db = stack.accounts.ctx.db
    for (const username of ['ada', 'bea'])
      await db('accounts').insert({
        username,
        domain: 'far.example',
        uri: `https://far.example/users/${username}`,
      })
    for (let i = 1; i <= 21; i++) {
      const domain = `srv${String(i).padStart(2, '0')}.example`
      await db('accounts').insert({ username: 'someone', domain, uri: `https://${domain}/users/someone` })
    }
    await recordFailure(db, 'far.example')
    await open('/admin/instances', 'Servers')
    const table = page.getByRole('table', { name: 'Servers this one knows, with their delivery health' })
    const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'far.example' }) })
    const cells = await row.getByRole('cell').allTextContents()
    const first = await asOwner('/api/v1/admin/instances?limit=20')
    const far = first.body.find((i: { domain: string }) => i.domain === 'far.example')
    expect(far).toMatchObject({ accounts_count: 2, delivery_failures: 1 })
    expect(cells.slice(0, 2)).toEqual([String(far.accounts_count), String(far.delivery_failures)])
    const domainsShown = async () => table.getByRole('rowheader').allTextContents()
    expect(await domainsShown()).toEqual(first.body.map((i: { domain: string }) => i.domain))

    await page.getByRole('button', { name: 'Next' }).click()
    await table.getByRole('rowheader', { name: 'far.example' }).waitFor({ state: 'detached' })
    const second = await asOwner('/api/v1/admin/instances?limit=20&offset=20')
    expect(second.body.map((i: { domain: string }) => i.domain)).toEqual(['srv20.example', 'srv21.example'])
    expect(await domainsShown()).toEqual(['srv20.example', 'srv21.example'])
    await page.getByRole('button', { name: 'Previous' }).click()
    await table.getByRole('rowheader', { name: 'far.example' }).waitFor()
  }, 60_000)

  it('keeps moderation notes on an account and on a report', async () => {
    const rowdy = await stack.createUser({ username: 'rowdy' })
    await open(`/admin/accounts/${rowdy.accountId}`, 'Account')
    const notesPath = `/api/v1/admin/accounts/${rowdy.accountId}/notes`
    const notes = async (url: string) => (await asOwner(url)).body.map((n: { content: string }) => n.content)
    await page.getByLabel('Note', { exact: true }).fill('Second warning this month.')
    await page.getByRole('button', { name: 'Add note' }).click()
    const list = page.getByRole('region', { name: 'Notes', exact: true })
    await list.getByText('Second warning this month.').waitFor()
    expect(await notes(notesPath)).toEqual(['Second warning this month.'])
    // The server's refusal is shown as it says it.
    await page.getByRole('button', { name: 'Add note' }).click()
    await page.getByRole('alert').filter({ hasText: "Content can't be blank" }).waitFor()
    await list.getByRole('button', { name: 'Delete this note' }).click()
    await list.getByText('No notes yet.').waitFor()
    expect(await notes(notesPath)).toEqual([])

    const filed = await stack
      .api()
      .post('/api/v1/reports')
      .set(bearer(userToken))
      .send({ account_id: rowdy.accountId, comment: 'Spamming links' })
      .expect(200)
    await open(`/admin/reports/${filed.body.id}`, 'Report')
    await page.getByLabel('Note', { exact: true }).fill('Asked the reporter for examples.')
    await page.getByRole('button', { name: 'Add note' }).click()
    await list.getByText('Asked the reporter for examples.').waitFor()
    expect(await notes(`/api/v1/admin/reports/${filed.body.id}/notes`)).toEqual([
      'Asked the reporter for examples.',
    ])
    await open(`/admin/reports/${filed.body.id}`, 'Report')
  }, 60_000)

  it('unsubscribes an account from push after a confirmation', async () => {
    const phone = await stack.createUser({ username: 'lost_phone' })
    const pushToken = await stack.userToken('push', phone)
    const subscription = () => stack.api().get('/api/v1/push/subscription').set(bearer(pushToken))
    const keys = createSubscriberKeys()
    await stack
      .api()
      .post('/api/v1/push/subscription')
      .set(bearer(pushToken))
      .send({
        subscription: {
          endpoint: 'https://push.example/device-lost',
          keys: { p256dh: keys.p256dh, auth: keys.auth },
        },
        data: { alerts: { mention: true } },
      })
      .expect(200)
    await open(`/admin/accounts/${phone.accountId}`, 'Account')
    await page.getByRole('button', { name: 'Unsubscribe from push…' }).click()
    const confirm = page.getByRole('group', { name: 'Unsubscribe from push' })
    // Cancelling changes nothing.
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await subscription().expect(200)
    await page.getByRole('button', { name: 'Unsubscribe from push…' }).click()
    await confirm.getByRole('button', { name: 'Yes, unsubscribe from push' }).click()
    await page.getByText('@lost_phone is unsubscribed from push').waitFor()
    await stack.drain()
    await subscription().expect(404)
  }, 60_000)

  it('pages through the trending hashtags by their Link header', async () => {
    const author = await stack.createUser({ username: 'tagger' })
    await stack.accounts.ctx.db('accounts').where({ id: author.accountId }).update({ discoverable: true })
    const token = await stack.userToken('read write', author)
    for (let i = 1; i <= 21; i++)
      await stack
        .api()
        .post('/api/v1/statuses')
        .set(bearer(token))
        .send({ status: `Birds #bird${String(i).padStart(2, '0')}`, visibility: 'public' })
        .expect(200)
    const first = await asOwner('/api/v1/admin/trends/tags?limit=20')
    expect(first.body).toHaveLength(20)
    expect(first.headers.link).toBe(`<${stack.url}/api/v1/admin/trends/tags?limit=20&offset=20>; rel="next"`)

    await open('/admin/trends', 'Trends')
    const tags = page.getByRole('region', { name: 'Trending hashtags' })
    await expect(tags.getByRole('listitem').count()).resolves.toBe(20)
    await expect(tags.getByRole('button', { name: 'Previous' }).isDisabled()).resolves.toBe(true)
    await tags.getByRole('button', { name: 'Next' }).click()
    await tags.getByRole('listitem').nth(1).waitFor({ state: 'detached' })
    await expect(tags.getByRole('listitem').count()).resolves.toBe(1)
    const last = (await asOwner('/api/v1/admin/trends/tags?limit=20&offset=20')).body
    await expect(tags.getByRole('listitem').textContent()).resolves.toContain(`#${last[0].name}`)
    await tags.getByRole('button', { name: 'Previous' }).click()
    await tags.getByRole('listitem').nth(19).waitFor()
  }, 60_000)

  it("shows the dashboard's measures day by day, as the API gives them", async () => {
    await open('/admin', 'Moderation')
    await page.getByText('Each day').click()
    const days = page.getByRole('table', { name: 'The last 30 days, day by day' })
    await expect(days.getByRole('row').count()).resolves.toBe(31)
    const today = new Date().toISOString().slice(0, 10)
    const [newUsers] = (
      await stack
        .api()
        .post('/api/v1/admin/measures')
        .set(bearer(ownerToken))
        .send({ keys: ['new_users'], start_at: today, end_at: today })
        .expect(200)
    ).body
    const row = days.getByRole('row').filter({ has: page.getByRole('rowheader', { name: today }) })
    // The first column of figures is new users; several signed up today in this test.
    const figures = await row.getByRole('cell').allTextContents()
    expect(Number(figures[0])).toBeGreaterThan(2)
    expect(figures[0]).toBe(newUsers.data[0].value)
    expect(web.cspViolations).toEqual([])
  }, 60_000)

  it('visits every other admin page, without a serious accessibility problem', async () => {
    const rest: [string, string][] = [
      ['/admin/reports', 'Reports'],
      ['/admin/accounts', 'Accounts'],
      ['/admin/domain_blocks', 'Blocked servers'],
      ['/admin/custom_emojis', 'Custom emojis'],
      ['/admin/relays', 'Relays'],
      ['/admin/action_logs', 'Audit log'],
      ['/admin/webhooks', 'Webhooks'],
      ['/admin/settings', 'Server settings'],
    ]
    for (const [pathname, heading] of rest) await open(pathname, heading)
    expect(web.cspViolations).toEqual([])
  }, 60_000)

  it('makes only admin calls that are admin routes with a permission, each checked for 403 per permission', () => {
    const pattern = (p: string) => new RegExp(`^${p.replace(/:\w+/g, '[^/]+')}$`)
    const routesOf = (call: string) => {
      const [method, pathname] = call.split(' ')
      return ROUTES.filter((r) => r.method === method && pattern(r.path).test(pathname!))
    }
    const recorded = [...calls].sort()
    // Every call is a route of the table; every admin one only an admin route with its permission.
    expect(recorded.filter((c) => routesOf(c).length === 0)).toEqual([])
    const adminCalls = recorded.filter((c) => /^\w+ \/api\/v\d\/admin\//.test(c))
    expect(
      adminCalls.filter((c) => !routesOf(c).every((r) => ADMIN_ROUTES.includes(r) && r.permission)),
    ).toEqual([])
    // The pages were driven: what they changed went through these calls.
    expect(adminCalls).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^POST \/api\/v1\/admin\/announcements\/\d+\/publish$/),
        expect.stringMatching(/^PUT \/api\/v1\/admin\/rules\/\d+$/),
        expect.stringMatching(/^DELETE \/api\/v1\/admin\/roles\/\d+$/),
        expect.stringMatching(/^DELETE \/api\/v1\/admin\/accounts\/\d+\/notes\/\d+$/),
        'POST /api/v1/admin/canonical_email_blocks/test',
        'PUT /api/v1/admin/settings',
        'POST /api/v1/admin/measures',
      ]),
    )

    // And in the pages' source: every admin API path written there (a `${…}` is any one segment, and a path
    // may be followed by more) names admin routes only, each with its permission.
    const dir = path.join(__dirname, '..', '..', 'apps', 'web', 'src', 'pages', 'admin')
    const written = readdirSync(dir).flatMap((file) =>
      [...readFileSync(path.join(dir, file), 'utf8').matchAll(/['`](\/api\/v\d\/admin\/[^'`]*)['`]/g)].map(
        (m) => m[1]!,
      ),
    )
    expect(written.length).toBeGreaterThan(50)
    const prefix = (p: string) =>
      new RegExp(`^${p.replace(/\$\{[^}]*\}/g, ':param').replace(/:\w+/g, '[^/]+')}(/|$)`)
    const unmatched = written.filter((p) => {
      const routes = ROUTES.filter((r) => prefix(p).test(r.path.replace(/:\w+/g, ':param')))
      return routes.length === 0 || !routes.every((r) => ADMIN_ROUTES.includes(r) && r.permission)
    })
    expect(unmatched).toEqual([])
    // Every admin page of WEB_PAGES was opened.
    expect(WEB_PAGES.filter((p) => p.startsWith('/admin') && !opened.has(p))).toEqual([])
  })
})
