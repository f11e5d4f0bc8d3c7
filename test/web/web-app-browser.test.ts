import { createHmac } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Page } from 'playwright-core'
import sharp from 'sharp'
import { addRule } from '../../apps/accounts/src/domain/rules'
import { smtpEnv, startSmtpReceiver } from '../mail/smtp-receiver'
import type { SmtpReceiver } from '../mail/smtp-receiver'
import { accessible, RATE_LIMITS_ON, settled, startWebBrowser } from './browser'
import { bearer, eventually, startStack } from '../stack'
import type { Stack } from '../stack'

/**
 * The web app (apps/web; docs/architecture.md, "The web app") in headless Chromium, through the gateway with its
 * rate limits, CSP and CORS on, as people use it: a newcomer signs up on a server that approves accounts, a
 * moderator (the seeded Moderator role) approves them, they edit their profile with an avatar and add a filter the
 * API then applies; an admin changes the registration mode and adds a webhook; the moderator resolves a report with a
 * suspension, the reported user gets the warning mail, the webhook's receiver a signed `report.created`, and the
 * audit log shows it. axe-core checks every page; the browser reports no CSP violation.
 */
const LOGIN = 'roost-mailer'
const PASSWORD = 'smtp-password-for-tests'

let stack: Stack
let smtp: SmtpReceiver
/** A webhook receiver on loopback, keeping what it was sent. */
let receiver: http.Server
const delivered: { signature: string; body: string }[] = []
let web: Awaited<ReturnType<typeof startWebBrowser>>

beforeAll(async () => {
  smtp = await startSmtpReceiver({ login: LOGIN, password: PASSWORD })
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      delivered.push({
        signature: String(req.headers['x-hub-signature']),
        body: Buffer.concat(chunks).toString(),
      })
      res.writeHead(200).end('ok')
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  stack = await startStack({
    env: {
      ...smtpEnv(smtp, LOGIN, PASSWORD),
      // The webhook receiver is on loopback, reached as federation peers are in tests.
      FEDERATION_ALLOW_HTTP: 'true',
      REGISTRATIONS_MODE: 'approved',
      ...RATE_LIMITS_ON,
      RATE_LIMIT_SIGN_UPS: '1000/300',
    },
  })
  await stack.accounts.ctx.db.transaction((trx) =>
    addRule(trx, { text: 'Be kind to one another', hint: 'No harassment, no hate.' }),
  )
  web = await startWebBrowser()
}, 180_000)
afterAll(async () => {
  await web?.close()
  await stack?.stop()
  await smtp?.close()
  receiver?.close()
})

/** Through the server's sign-in and consent pages, back to the page that asked (the OAuth code flow with PKCE). */
async function signIn(page: Page, who: { email: string; password: string }, scopes: RegExp) {
  await page.waitForURL(/\/oauth\/authorize\?/)
  const asked = new URL(page.url())
  expect(asked.searchParams.get('code_challenge_method')).toBe('S256')
  expect(asked.searchParams.get('scope')).toMatch(scopes)
  if (await page.getByLabel('E-mail address or username').isVisible()) {
    await page.getByLabel('E-mail address or username').fill(who.email)
    await page.getByLabel('Password').fill(who.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
  }
  await page.getByRole('button', { name: 'Authorize' }).click()
  await page
    .waitForURL((url) => !url.pathname.startsWith('/oauth') && url.pathname !== '/web/callback')
    .catch(async (err: Error) => {
      // Where it stopped, and what it showed: a refusal, an error of the callback page, or still loading.
      const shown = await page
        .locator('main')
        .innerText({ timeout: 1000 })
        .catch(() => '(nothing)')
      throw new Error(`${err.message}\nat ${page.url()}, showing: ${shown}`)
    })
}

const newcomer = { username: 'newbie', email: 'newbie@example.test', password: 'a long enough password' }
let moderator: Page
let moderatorUser: Awaited<ReturnType<Stack['createUser']>>
let admin: Page
let adminUser: Awaited<ReturnType<Stack['createUser']>>
let hookUrl: string
let hookSecret: string

describe('the web app in a browser', () => {
  it('signs a newcomer up: the rules shown, a reason asked as the server approves accounts', async () => {
    const page = await web.person()
    const served = await page.goto(`${stack.url}/auth/sign_up`)
    expect(served!.headers()['content-security-policy']).toContain("script-src 'self'")
    // The gateway serves the app's own files and nothing else under /web-assets.
    const script = await stack.api().get('/web-assets/app.js').expect(200)
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
    await stack.api().get('/web-assets/..%2Fpackage.json').expect(404)
    await stack.api().get('/web-assets/build.mjs').expect(404)
    await settled(page, 'Create an account')
    await expect(page.getByRole('region', { name: 'Server rules' }).textContent()).resolves.toContain(
      'Be kind to one another',
    )
    await accessible(page)
    await page.getByLabel('Username').fill(newcomer.username)
    await page.getByLabel('E-mail address').fill(newcomer.email)
    await page.getByLabel('Password').fill(newcomer.password)
    await page.getByLabel('Why do you want to join?').fill('I keep pigeons and want to talk about them.')
    await page.getByLabel('I have read and agree to the server rules').check()
    await page.getByRole('button', { name: 'Sign up' }).click()
    await expect(
      page.getByRole('status').filter({ hasText: 'waiting for a moderator' }).textContent(),
    ).resolves.toMatch(/Roost Test Town/)
    const user = await stack.accounts.ctx
      .db('users')
      .join('accounts', 'accounts.id', 'users.account_id')
      .where('accounts.username', 'newbie')
      .first()
    expect(user).toMatchObject({ approved: false, email: newcomer.email })
  }, 120_000)

  it('lets a moderator approve the sign-up from the pending accounts, with admin scopes asked only there', async () => {
    moderatorUser = await stack.createUser({ username: 'mod', role: 'moderator' })
    moderator = await web.person()
    await moderator.goto(`${stack.url}/admin`)
    await signIn(moderator, moderatorUser, /admin:read/)
    await settled(moderator, 'Moderation')
    await expect(moderator.getByRole('link', { name: /sign-ups waiting/ }).textContent()).resolves.toContain(
      '1',
    )
    // Mastodon's dashboard measures: this month's sign-ups (the moderator and the newcomer at least).
    const month = moderator.getByRole('list', { name: 'The last 30 days' })
    await expect(month.getByRole('listitem').filter({ hasText: 'new users' }).textContent()).resolves.toMatch(
      /^[2-9]\d* new users/,
    )
    await moderator.getByRole('table', { name: /Share of each month's new users/ }).waitFor()
    await expect(moderator.getByRole('table', { name: 'Jobs by queue' }).count()).resolves.toBe(0)
    // The menu is the role's: a moderator manages reports and users, not the server or its queues.
    const menu = moderator.getByRole('navigation', { name: 'Moderation' })
    await expect(menu.getByRole('link', { name: 'Audit log' }).isVisible()).resolves.toBe(true)
    for (const absent of ['Queues (Bull Board)', 'Server settings', 'Roles', 'Webhooks', 'Blocked servers'])
      await expect(menu.getByRole('link', { name: absent }).count()).resolves.toBe(0)
    await accessible(moderator)

    await moderator.getByRole('link', { name: 'Accounts' }).click()
    await settled(moderator, 'Accounts')
    await expect(
      moderator.getByText('I keep pigeons and want to talk about them.').isVisible(),
    ).resolves.toBe(true)
    await accessible(moderator)
    await moderator.getByRole('button', { name: 'Approve @newbie' }).click()
    await moderator.getByText('No accounts here.').waitFor()
    const row = await stack.accounts.ctx.db('users').where({ email: newcomer.email }).first()
    expect(row.approved).toBe(true)
  }, 120_000)

  it('edits the profile with an avatar, and adds a filter the API applies', async () => {
    const page = await web.person()
    await page.goto(`${stack.url}/settings/profile`)
    // The settings ask for their pages' scopes, never admin ones.
    await signIn(page, newcomer, /^(?!.*admin).*write:accounts/)
    await settled(page, 'Profile')
    await accessible(page)
    await page.getByLabel('Display name').fill('Newbie the Pigeon Keeper')
    await page.getByLabel('Bio').fill('Pigeons, mostly.')
    await page.getByLabel('Label 1').fill('Loft')
    await page.getByLabel('Content 1').fill('Rooftop')
    const avatar = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#563acc' } })
      .png()
      .toBuffer()
    await page.getByLabel('Avatar').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: avatar })
    await page.getByLabel('Approve followers by hand (locked account)').check()
    await page.getByRole('button', { name: 'Save profile' }).click()
    await page.getByText('Profile saved.').waitFor()

    const token = await stack.userToken('read write', newcomer)
    const me = await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(200)
    expect(me.body).toMatchObject({
      display_name: 'Newbie the Pigeon Keeper',
      locked: true,
      fields: [expect.objectContaining({ name: 'Loft', value: 'Rooftop' })],
    })
    expect(me.body.source.note).toBe('Pigeons, mostly.')
    expect(me.body.avatar).not.toMatch(/missing/)
    const image = await stack.api().get(new URL(me.body.avatar).pathname).expect(200)
    expect(image.headers['content-type']).toMatch(/^image\//)

    await page.getByRole('link', { name: 'Filters' }).click()
    await settled(page, 'Filters')
    await page.getByText('Add a filter').click()
    await page.getByLabel('Title').fill('No spoilers')
    await page.getByLabel('Keywords or phrases').fill('finale')
    await page.getByRole('button', { name: 'Add filter' }).click()
    await page.getByRole('heading', { name: 'No spoilers' }).waitFor()
    await accessible(page)

    const poster = await stack.userToken('read write')
    await stack
      .api()
      .post('/api/v1/statuses')
      .set(bearer(poster))
      .send({ status: 'The finale was wild', visibility: 'public' })
      .expect(200)
    const timeline = await stack.api().get('/api/v1/timelines/public').set(bearer(token)).expect(200)
    const filtered = timeline.body.find((s: { content: string }) => s.content.includes('finale'))
    expect(filtered.filtered).toEqual([
      expect.objectContaining({
        filter: expect.objectContaining({ title: 'No spoilers' }),
        keyword_matches: ['finale'],
      }),
    ])

    // Lists go page by page by the API's Link header: 21 blocked domains are 20, then 1.
    for (let i = 1; i <= 21; i++)
      await stack
        .api()
        .post('/api/v1/domain_blocks')
        .set(bearer(token))
        .send({ domain: `spam${String(i).padStart(2, '0')}.example` })
        .expect(200)
    await page.goto(`${stack.url}/settings/blocks`)
    await settled(page, 'Blocks and mutes')
    const domains = page.getByRole('region', { name: 'Blocked domains' })
    await expect(domains.getByRole('listitem').count()).resolves.toBe(20)
    await expect(domains.getByRole('listitem').first().textContent()).resolves.toContain('spam21.example')
    await domains.getByRole('button', { name: 'Older' }).click()
    await domains.getByText('spam01.example', { exact: true }).waitFor()
    await expect(domains.getByRole('listitem').count()).resolves.toBe(1)
    await domains.getByRole('button', { name: 'Newer' }).click()
    await domains.getByText('spam21.example', { exact: true }).waitFor()
    await accessible(page)

    // The default quote policy is set on the preferences page.
    await page.goto(`${stack.url}/settings/preferences`)
    await settled(page, 'Preferences')
    await page.getByLabel('Who may quote your new posts').selectOption('followers')
    await page.getByRole('button', { name: 'Save preferences' }).click()
    await page.getByText('Preferences saved.').waitFor()
    const prefs = await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(200)
    expect(prefs.body.source.quote_policy).toBe('followers')
    await accessible(page)

    // An alias (for moving here from another account) is added on the Moving page, then removed as listed.
    const other = await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(poster)).expect(200)
    await page.getByRole('link', { name: 'Moving', exact: true }).click()
    await settled(page, 'Moving')
    await page.getByLabel('Handle of the old account (user@server)').fill(other.body.username)
    await page.getByRole('button', { name: 'Add alias' }).click()
    const aliases = page.getByRole('list', { name: 'Aliases' })
    await aliases.getByText(`/users/${other.body.username}`).waitFor()
    const listed = await stack.api().get('/api/v1/accounts/aliases').set(bearer(token)).expect(200)
    expect(listed.body).toEqual([
      { uri: expect.stringMatching(new RegExp(`/users/${other.body.username}$`)) },
    ])
    await accessible(page)
    await aliases.getByRole('button', { name: /^Remove alias/ }).click()
    await aliases.getByText('No aliases.').waitFor()
    await stack.api().get('/api/v1/accounts/aliases').set(bearer(token)).expect(200, [])
    // The move form reaches the API (which checks the password first; moving is tested across two servers in
    // test/federation/move-two-roost.test.ts) and shows its refusal.
    const move = page.getByRole('form', { name: 'Move to another account' })
    await move.getByLabel('Handle of the new account (user@server)').fill(other.body.username)
    await move.getByLabel('Your current password').fill('not the password')
    await move.getByLabel(/^I understand/).check()
    await move.getByRole('button', { name: 'Move this account' }).click()
    await move.getByRole('alert').filter({ hasText: 'Current password is invalid' }).waitFor()

    // Every other settings page draws without a serious accessibility problem.
    for (const [path, heading] of [
      ['/settings/tags', 'Hashtags'],
      ['/settings/lists', 'Lists'],
    ]) {
      await page.goto(`${stack.url}${path}`)
      await settled(page, heading!)
      await accessible(page)
    }

    // Moderation is not theirs: the server grants them no admin scope, and the page says so.
    await page.goto(`${stack.url}/admin/reports`)
    await signIn(page, newcomer, /admin:read:reports/)
    await page.getByRole('alert').filter({ hasText: 'Moderation is for the server' }).waitFor()
  }, 180_000)

  it('lets the owner close sign-ups on the settings page and add a signed webhook', async () => {
    adminUser = await stack.createUser({ username: 'boss', role: 'owner' })
    admin = await web.person()
    await admin.goto(`${stack.url}/admin/settings`)
    await signIn(admin, adminUser, /admin:write/)
    await settled(admin, 'Server settings')
    await expect(admin.getByLabel('Registrations mode').inputValue()).resolves.toBe('approved')
    await accessible(admin)
    await admin.getByLabel('Registrations mode').selectOption('none')
    await admin.getByLabel('Message when sign-ups are closed').fill('Closed for the winter.')
    await admin.getByRole('button', { name: 'Save settings' }).click()
    await admin.getByText('Settings saved.').waitFor()
    const instance = await stack.api().get('/api/v2/instance').expect(200)
    expect(instance.body.registrations).toMatchObject({ enabled: false, message: 'Closed for the winter.' })
    await expect(admin.getByRole('link', { name: 'Queues (Bull Board)' }).getAttribute('href')).resolves.toBe(
      '/admin/queues',
    )

    // The dashboard has the queues for the owner (view_devops; docs/moderation.md).
    await admin.goto(`${stack.url}/admin`)
    await settled(admin, 'Moderation')
    await admin
      .getByRole('table', { name: 'Jobs by queue' })
      .getByRole('rowheader', { name: 'webhooks' })
      .waitFor()
    await accessible(admin)

    // A webhook for new reports, to the receiver on loopback; its secret is shown on asking.
    await admin.getByRole('link', { name: 'Webhooks' }).click()
    await settled(admin, 'Webhooks')
    await admin.getByText('Add a webhook').click()
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
    await admin.getByLabel('Endpoint URL').fill(hookUrl)
    await expect(admin.getByLabel('A report was filed (report.created)').isChecked()).resolves.toBe(true)
    await admin.getByRole('button', { name: 'Add webhook' }).click()
    await admin.getByRole('button', { name: `Disable ${hookUrl}` }).waitFor()
    await admin.getByRole('button', { name: 'Show the secret' }).click()
    const firstSecret = (await admin.getByLabel(`Signing secret of ${hookUrl}`).textContent())!
    expect(firstSecret).toMatch(/^[0-9a-f]{40}$/)
    // Rotated: the deliveries are signed with the new secret, shown again on asking.
    await admin.getByRole('button', { name: `Rotate the secret of ${hookUrl}` }).click()
    await admin.getByRole('button', { name: 'Show the secret' }).click()
    hookSecret = (await admin.getByLabel(`Signing secret of ${hookUrl}`).textContent())!
    expect(hookSecret).toMatch(/^[0-9a-f]{40}$/)
    expect(hookSecret).not.toBe(firstSecret)
    await accessible(admin)

    // A custom role with one permission, given to the newcomer from their account page.
    await admin.goto(`${stack.url}/admin/roles`)
    await settled(admin, 'Roles')
    await admin.getByText('Create a role').click()
    const create = admin.getByRole('form', { name: 'Create a role' })
    await create.getByLabel('Name').fill('Helper')
    await create.getByLabel('Position').fill('5')
    await create.getByLabel('Manage reports').check()
    await create.getByRole('button', { name: 'Create role' }).click()
    await admin.getByRole('list', { name: 'Roles' }).getByText('Helper', { exact: true }).waitFor()
    await accessible(admin)
    const newbie = await stack.accounts.ctx.db('accounts').where({ username: 'newbie', domain: null }).first()
    await admin.goto(`${stack.url}/admin/accounts/${newbie.id}`)
    await settled(admin, 'Account')
    await admin.getByLabel('Role', { exact: true }).selectOption({ label: 'Helper' })
    await admin.getByRole('button', { name: 'Change role' }).click()
    await admin.getByText('Role changed.').waitFor()
    const ownerToken = await stack.userToken('admin:read', adminUser)
    const given = await stack
      .api()
      .get(`/api/v1/admin/accounts/${newbie.id}`)
      .set(bearer(ownerToken))
      .expect(200)
    expect(given.body.role).toMatchObject({ name: 'Helper', permissions: '16' })
    await accessible(admin)

    // Every other admin page draws without a serious accessibility problem.
    for (const [path, heading] of [
      ['/admin/rules', 'Server rules'],
      ['/admin/domain_allows', 'Allowed servers'],
      ['/admin/email_domain_blocks', 'Blocked e-mail domains'],
      ['/admin/canonical_email_blocks', 'Blocked e-mail addresses'],
      ['/admin/announcements', 'Announcements'],
      ['/admin/domain_blocks', 'Blocked servers'],
      ['/admin/ip_blocks', 'IP rules'],
      ['/admin/custom_emojis', 'Custom emojis'],
      ['/admin/instances', 'Servers'],
    ]) {
      await admin.goto(`${stack.url}${path}`)
      await settled(admin, heading!)
      await accessible(admin)
    }

    // A relay added on its page is followed at once: pending until the relay answers (this one never will).
    await admin.goto(`${stack.url}/admin/relays`)
    await settled(admin, 'Relays')
    await admin.getByText('Add a relay').click()
    await admin.getByLabel("The relay's inbox address").fill('https://relay.example/inbox')
    await admin.getByRole('button', { name: 'Add relay' }).click()
    await admin.getByText('Waiting for the relay to accept').waitFor()
    await accessible(admin)
    const relays = await stack.api().get('/api/v1/admin/relays').set(bearer(ownerToken)).expect(200)
    expect(relays.body).toEqual([
      expect.objectContaining({ inbox_url: 'https://relay.example/inbox', state: 'pending' }),
    ])
  }, 180_000)

  it('lets a moderator resolve a report with a suspension: the warning mail, the webhook, the audit log', async () => {
    const rowdy = await stack.createUser({ username: 'rowdy' })
    const rowdyToken = await stack.userToken('read write', rowdy)
    const status = await stack
      .api()
      .post('/api/v1/statuses')
      .set(bearer(rowdyToken))
      .send({ status: 'something nasty', visibility: 'public' })
      .expect(200)
    const reporter = await stack.userToken('read write', newcomer)
    const filed = await stack
      .api()
      .post('/api/v1/reports')
      .set(bearer(reporter))
      .send({ account_id: rowdy.accountId, status_ids: [status.body.id], comment: 'Rude to everyone' })
      .expect(200)

    await moderator.goto(`${stack.url}/admin/reports`)
    await settled(moderator, 'Reports')
    await accessible(moderator)
    await moderator.getByRole('link', { name: `Report #${filed.body.id} on @rowdy` }).click()
    await settled(moderator, 'Report')
    await expect(moderator.getByText('something nasty').isVisible()).resolves.toBe(true)
    await moderator.getByRole('button', { name: 'Assign to me' }).click()
    await moderator.getByRole('button', { name: 'Unassign' }).waitFor()
    await accessible(moderator)
    // The report's category: a rule broken.
    await moderator.getByText('Change the category').click()
    await moderator.getByLabel('Category', { exact: true }).selectOption('violation')
    await moderator.getByLabel('Be kind to one another').check()
    await moderator.getByRole('button', { name: 'Save category' }).click()
    await moderator.getByRole('listitem').filter({ hasText: 'Be kind to one another' }).first().waitFor()
    await moderator.getByLabel('Action to take').selectOption('suspend')
    await moderator
      .getByLabel('Warning text sent to the user')
      .fill('Harassing other members is not allowed here.')
    await moderator.getByRole('button', { name: 'Take action and resolve' }).click()
    await moderator.getByRole('heading', { name: /resolved/ }).waitFor()

    const mail = await smtp.next(rowdy.email, /^Your account @rowdy@\S+ has been suspended$/)
    expect(mail.text).toContain('Harassing other members is not allowed here.')
    const staffToken = await stack.userToken('admin:read', moderatorUser)
    const report = await stack
      .api()
      .get(`/api/v1/admin/reports/${filed.body.id}`)
      .set(bearer(staffToken))
      .expect(200)
    expect(report.body.action_taken).toBe(true)
    expect(report.body.category).toBe('violation')
    expect(report.body.rules).toEqual([expect.objectContaining({ text: 'Be kind to one another' })])
    expect(report.body.target_account.suspended).toBe(true)

    // The webhook's receiver got the report, signed with the secret the page showed.
    await eventually(
      async () => delivered.some((d) => JSON.parse(d.body).object?.id === filed.body.id),
      20_000,
    )
    const delivery = delivered.find((d) => JSON.parse(d.body).object?.id === filed.body.id)!
    expect(JSON.parse(delivery.body).event).toBe('report.created')
    expect(delivery.signature).toBe(
      `sha256=${createHmac('sha256', hookSecret).update(delivery.body).digest('hex')}`,
    )

    // The audit log has the suspension, by the moderator, found by its verb.
    await moderator.goto(`${stack.url}/admin/action_logs`)
    await settled(moderator, 'Audit log')
    await moderator.getByLabel('Action').fill('suspend')
    const log = moderator.getByRole('region', { name: 'Audit log' })
    // The search reloads the list: wait for it to hold the one suspension.
    await eventually(async () => (await log.getByRole('listitem').count()) === 1, 10_000)
    await log.getByRole('link', { name: /rowdy/ }).waitFor()
    await expect(log.textContent()).resolves.toContain('@mod')
    await accessible(moderator)

    await moderator.goto(`${stack.url}/admin/accounts/${rowdy.accountId}`)
    await settled(moderator, 'Account')
    await accessible(moderator)
    // Trends review: a hashtag trending, rejected on the page, leaves the public trends.
    const keeper = await stack.createUser({ username: 'keeper' })
    await stack.accounts.ctx.db('accounts').where({ id: keeper.accountId }).update({ discoverable: true })
    const trending = await stack
      .api()
      .post('/api/v1/statuses')
      .set(bearer(await stack.userToken('read write', keeper)))
      .send({ status: 'Squabs hatched #pigeonpost', visibility: 'public' })
      .expect(200)
    await stack.api().post(`/api/v1/statuses/${trending.body.id}/favourite`).set(bearer(reporter)).expect(200)
    await stack.drain()
    const publicTags = async () =>
      (await stack.api().get('/api/v1/trends/tags').expect(200)).body.map((t: { name: string }) => t.name)
    expect(await publicTags()).toContain('pigeonpost')
    await moderator.goto(`${stack.url}/admin/trends`)
    await settled(moderator, 'Trends')
    await accessible(moderator)
    await moderator.getByRole('button', { name: 'Reject #pigeonpost' }).click()
    await moderator
      .getByRole('region', { name: 'Trending hashtags' })
      .getByRole('listitem')
      .filter({ hasText: '#pigeonpost' })
      .getByText('rejected')
      .waitFor()
    expect(await publicTags()).not.toContain('pigeonpost')
    expect(web.cspViolations).toEqual([])
  }, 180_000)
})
