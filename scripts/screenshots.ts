// `npm run screenshots`: pictures of the web app's main pages for docs/screenshots/ (docs/architecture.md, "The web
// app"). Starts a whole stack as the tests do (its own database and Redis prefix, removed afterwards), fills it
// with a little of everything, signs in through the OAuth pages in headless Chromium and photographs each page.
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import sharp from 'sharp'
import { launchChromium } from '@roost/testing'
import { addRule } from '../apps/accounts/src/domain/rules'
import globalSetup from '../test/global-setup'
import globalTeardown from '../test/global-teardown'
import { bearer, startStack } from '../test/stack'

const OUT = path.resolve(__dirname, '..', 'docs', 'screenshots')

/** A picture to choose as an avatar: a sky, a roof and a pigeon on its right. */
const LOFT = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="600">
<rect width="1200" height="600" fill="#9fd3f5"/><rect y="380" width="1200" height="220" fill="#8a4b2f"/>
<circle cx="180" cy="120" r="70" fill="#ffd23f"/><ellipse cx="860" cy="300" rx="120" ry="85" fill="#6b6f80"/>
<circle cx="950" cy="230" r="48" fill="#7a7f92"/><circle cx="968" cy="220" r="8" fill="#111"/>
<polygon points="995,232 1030,242 995,250" fill="#e39b2d"/></svg>`

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.waitForURL(/\/oauth\/authorize\?/)
  await page.getByLabel('E-mail address or username').fill(who.email)
  await page.getByLabel('Password').fill(who.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('button', { name: 'Authorize' }).click()
  await page.waitForURL((url) => !url.pathname.startsWith('/oauth') && url.pathname !== '/web/callback')
}

/** `full`: the whole page, not only what the window shows. */
async function shoot(page: Page, url: string, name: string, ready: string, full = false) {
  await page.goto(url)
  await page.getByText(ready, { exact: false }).first().waitFor()
  await page.waitForFunction(
    () =>
      !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector(
        '[aria-busy=true], p.muted[role=status]',
      ),
  )
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: full })
  console.log(`docs/screenshots/${name}.png`)
}

async function main() {
  mkdirSync(OUT, { recursive: true })
  await globalSetup()
  const stack = await startStack({
    env: { REGISTRATIONS_MODE: 'approved', INSTANCE_TITLE: 'Roost Town' },
  })
  const browser = await launchChromium()
  try {
    const db = stack.accounts.ctx.db
    await db.transaction(async (trx) => {
      await addRule(trx, { text: 'Be kind to one another', hint: 'No harassment, no hate.' })
      await addRule(trx, { text: 'Mark sensitive media as sensitive' })
      await addRule(trx, { text: 'No spam or advertising' })
    })
    const admin = await stack.createUser({ username: 'admin', role: 'owner' })
    const ada = await stack.createUser({ username: 'ada' })
    const rowdy = await stack.createUser({ username: 'rowdy' })
    const adaToken = await stack.userToken('read write follow', ada)
    const rowdyToken = await stack.userToken('read write', rowdy)
    await stack
      .api()
      .patch('/api/v1/accounts/update_credentials')
      .set(bearer(adaToken))
      .send({ display_name: 'Ada', note: 'Counting engines, mostly.' })
      .expect(200)
    await stack
      .api()
      .post('/api/v2/filters')
      .set(bearer(adaToken))
      .send({
        title: 'No spoilers',
        context: ['home', 'public'],
        filter_action: 'warn',
        keywords_attributes: [{ keyword: 'finale' }, { keyword: 'season ending' }],
      })
      .expect(200)
    const status = await stack
      .api()
      .post('/api/v1/statuses')
      .set(bearer(rowdyToken))
      .send({ status: 'Buy cheap watches at example.invalid!!!' })
      .expect(200)
    await stack
      .api()
      .post('/api/v1/reports')
      .set(bearer(adaToken))
      .send({
        account_id: rowdy.accountId,
        status_ids: [status.body.id],
        comment: 'Spam in every reply',
        category: 'spam',
      })
      .expect(200)
    const app = await stack.appToken('write:accounts')
    await stack
      .api()
      .post('/api/v1/accounts')
      .set(bearer(app))
      .send({
        username: 'newcomer',
        email: 'newcomer@example.test',
        password: 'a long enough password',
        agreement: true,
        locale: 'en',
        reason: 'I run the pigeon club downtown and would like to post our meetings.',
      })
      .expect(200)
    const adminToken = await stack.userToken('admin:read admin:write', admin)
    const adminAccountToken = await stack.userToken('admin:write:accounts', admin)
    await stack
      .api()
      .post(`/api/v1/admin/accounts/${rowdy.accountId}/notes`)
      .set(bearer(adminAccountToken))
      .send({ content: 'Third spam report this month; warned once already.' })
      .expect(200)
    await stack
      .api()
      .post('/api/v1/admin/domain_blocks')
      .set(bearer(adminToken))
      .send({ domain: 'spam.example', severity: 'suspend', private_comment: 'Spam wave' })
      .expect(200)
    await stack
      .api()
      .post('/api/v1/admin/webhooks')
      .set(bearer(adminToken))
      .send({ url: 'https://hooks.example/roost', events: ['report.created', 'account.created'] })
      .expect(200)
    await stack
      .api()
      .post('/api/v1/admin/roles')
      .set(bearer(adminToken))
      .send({ name: 'Helper', position: 5, permissions_as_keys: ['manage_reports', 'view_dashboard'] })
      .expect(200)

    const visitor = await (await browser.newContext({ viewport: { width: 1000, height: 760 } })).newPage()
    await shoot(visitor, `${stack.url}/auth/sign_up`, 'sign-up', 'Server rules')

    const user = await (await browser.newContext({ viewport: { width: 1000, height: 900 } })).newPage()
    await user.goto(`${stack.url}/settings/profile`)
    await signIn(user, ada)
    await shoot(user, `${stack.url}/settings/profile`, 'settings-profile', 'Save profile')
    await shoot(user, `${stack.url}/settings/filters`, 'settings-filters', 'No spoilers')
    // An avatar being chosen: the picture with the part kept and its focal point, and the square it gives.
    await user.goto(`${stack.url}/settings/profile`)
    await user.getByLabel('Avatar', { exact: true }).setInputFiles({
      name: 'loft.png',
      mimeType: 'image/png',
      buffer: await sharp(Buffer.from(LOFT)).png().toBuffer(),
    })
    const picture = user.getByRole('img', { name: /^The chosen image/ })
    const box = (await picture.boundingBox())!
    await picture.click({ position: { x: box.width * 0.72, y: box.height * 0.45 } })
    await picture.scrollIntoViewIfNeeded()
    await user.screenshot({ path: path.join(OUT, 'settings-avatar-focal-point.png') })
    console.log('docs/screenshots/settings-avatar-focal-point.png')
    // A page of the sign-in server in the same frame.
    await shoot(user, `${stack.url}/settings/sessions`, 'settings-sessions', 'These applications')

    const mod = await (await browser.newContext({ viewport: { width: 1000, height: 760 } })).newPage()
    await mod.goto(`${stack.url}/admin`)
    await signIn(mod, admin)
    await shoot(mod, `${stack.url}/admin`, 'admin-dashboard', 'open reports')
    await shoot(mod, `${stack.url}/admin/accounts`, 'admin-accounts-pending', 'pigeon club')
    await shoot(mod, `${stack.url}/admin/reports`, 'admin-reports', 'Spam in every reply')
    const [report] = (await stack.api().get('/api/v1/admin/reports').set(bearer(adminToken)).expect(200)).body
    await shoot(mod, `${stack.url}/admin/reports/${report.id}`, 'admin-report', 'Take action and resolve')
    await shoot(mod, `${stack.url}/admin/accounts/${rowdy.accountId}`, 'admin-account', 'warned once', true)
    await shoot(mod, `${stack.url}/admin/domain_blocks`, 'admin-domain-blocks', 'spam.example')
    await shoot(mod, `${stack.url}/admin/roles`, 'admin-roles', 'Helper')
    await shoot(mod, `${stack.url}/admin/action_logs`, 'admin-audit-log', 'spam.example')
    await shoot(mod, `${stack.url}/admin/webhooks`, 'admin-webhooks', 'hooks.example')
    await shoot(mod, `${stack.url}/admin/settings`, 'admin-settings', 'Registrations mode')

    const phone = await (
      await browser.newContext({ viewport: { width: 390, height: 760 }, isMobile: true })
    ).newPage()
    await phone.goto(`${stack.url}/settings/profile`)
    await signIn(phone, ada)
    await shoot(phone, `${stack.url}/settings/filters`, 'settings-filters-phone', 'No spoilers')
  } finally {
    await browser.close()
    await stack.stop()
    await globalTeardown()
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
