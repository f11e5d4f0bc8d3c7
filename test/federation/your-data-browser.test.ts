import { readFile } from 'node:fs/promises'
import type { Browser, Page } from 'playwright-core'
import request from 'supertest'
import { launchChromium } from '@roost/testing'
import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

/**
 * One's data across two Roost servers, driven in headless Chromium (docs/security.md, "Your data", "Invites",
 * "Leaving"): alice on A exports her follows (a local and a remote one on B), drops them, imports the CSV and has
 * them back, the remote one accepted by B again; she invites someone while A's registrations are closed; then she
 * deletes her account and B drops its copy of her. The CSV's columns are Mastodon's
 * (mastodon/mastodon app/models/export.rb, read back by app/models/form/import.rb).
 */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 90_000) => eventuallyWithin(check, timeoutMs)
const FEDERATED = { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' }
let a: Stack
let b: Stack
let browser: Browser
beforeAll(async () => {
  a = await startStack({ env: { ...FEDERATED, REGISTRATIONS_MODE: 'none', INVITES_MIN_ROLE: 'user' } })
  b = await startStack({ env: FEDERATED })
  browser = await launchChromium()
}, 240_000)
afterAll(async () => {
  await browser?.close()
  await a?.stop()
  await b?.stop()
})

const hostOf = (s: Stack) => new URL(s.url).host
const T = { timeout: 30_000 }

async function signInPage(page: Page, who: { email: string; password: string }, to: string) {
  await page.goto(`${a.url}/auth/sign_in?return_to=${to}`)
  await page.fill('#email', who.email, T)
  await page.fill('#password', who.password, T)
  await Promise.all([page.waitForURL(`${a.url}${to}`, T), page.click('button[type=submit]', T)])
}

describe('your data, in a browser, across two Roost servers', () => {
  let alice: TestUser & { email: string; password: string }
  let carol: TestUser
  let bobOnA: { id: string }
  let page: Page
  let csvPath: string

  beforeAll(async () => {
    alice = (await signUp(a, { username: 'alice' })) as never
    carol = await signUp(a, { username: 'carol' })
    await signUp(b, { username: 'bob' })
    const found = await alice.get(`/api/v2/search?q=@bob@${hostOf(b)}&resolve=true&type=accounts`).expect(200)
    bobOnA = found.body.accounts[0]
    await alice.post(`/api/v1/accounts/${bobOnA.id}/follow`).expect(200)
    await alice.post(`/api/v1/accounts/${carol.id}/follow`).expect(200)
    await eventually(async () => {
      const r = await alice.get(`/api/v1/accounts/relationships?id[]=${bobOnA.id}`).expect(200)
      return r.body[0].following
    })
    page = await browser.newPage({ acceptDownloads: true })
  }, 120_000)
  afterAll(async () => {
    await page?.close()
  })

  it('exports the follows as Mastodon does', async () => {
    await signInPage(page, alice, '/settings/export')
    const [download] = await Promise.all([
      page.waitForEvent('download', T),
      page.click('a[href="/settings/exports/follows.csv"]', T),
    ])
    expect(download.suggestedFilename()).toBe('following_accounts.csv')
    csvPath = (await download.path())!
    const csv = await readFile(csvPath, 'utf8')
    const [header, ...rows] = csv.trim().split('\n')
    // Mastodon's columns, in its order (app/models/export.rb, to_following_accounts_csv).
    expect(header).toBe('Account address,Show boosts,Notify on new posts,Languages')
    expect(rows.sort()).toEqual([`bob@${hostOf(b)},true,false,`, `carol@${hostOf(a)},true,false,`].sort())
  })

  it('drops the follows, imports the CSV and has them back, the remote one accepted by B again', async () => {
    await alice.post(`/api/v1/accounts/${bobOnA.id}/unfollow`).expect(200)
    await alice.post(`/api/v1/accounts/${carol.id}/unfollow`).expect(200)
    await a.drain()
    await b.drain()
    const bobRow = () => b.accounts.ctx.db('accounts').where({ username: 'bob' }).whereNull('domain').first()
    await eventually(async () => (await bobRow()).followers_count === 0)
    expect((await alice.get(`/api/v1/accounts/${alice.id}/following`).expect(200)).body).toEqual([])

    await page.goto(`${a.url}/settings/imports`)
    await page.selectOption('#type', 'following', T)
    await page.setInputFiles('#data', csvPath, T)
    await Promise.all([page.waitForURL(`${a.url}/settings/imports`, T), page.click('button[type=submit]', T)])
    expect(await page.locator('#imports li').first().innerText(T)).toContain('of 2 processed')
    await eventually(async () => {
      await page.goto(`${a.url}/settings/imports`)
      return (await page.locator('#imports li').first().getAttribute('data-state', T)) === 'finished'
    })
    expect(await page.locator('#imports li').first().innerText(T)).toContain('2 of 2 processed, 2 imported')
    await eventually(async () => {
      const r = await alice
        .get(`/api/v1/accounts/relationships?id[]=${bobOnA.id}&id[]=${carol.id}`)
        .expect(200)
      return r.body.every((x: { following: boolean }) => x.following)
    })
    await eventually(async () => (await bobRow()).followers_count === 1)
  })

  it('invites someone while registrations are closed; the used invite then stops working', async () => {
    await page.goto(`${a.url}/settings/invites`)
    await page.selectOption('#max_uses', '1', T)
    await page.selectOption('#expires_in', '86400', T)
    await Promise.all([page.waitForURL(`${a.url}/settings/invites`, T), page.click('button[type=submit]', T)])
    const link = /(http\S+\/invite\/[A-Za-z0-9]{8})/.exec(
      await page.locator('[role=status]').innerText(T),
    )![1]!

    const guest = await browser.newPage()
    try {
      await guest.goto(link)
      expect(await guest.locator('h1').innerText(T)).toBe('@alice invites you')
      await guest.fill('#username', 'dora', T)
      await guest.fill('#email', 'dora@example.test', T)
      await guest.fill('#password', 'a good long password', T)
      await guest.fill('#password_confirmation', 'a good long password', T)
      await guest.check('#agreement', T)
      await Promise.all([guest.waitForURL(link, T), guest.click('button[type=submit]', T)])
      expect(await guest.locator('h1').innerText(T)).toBe('Welcome, @dora')
      const res = await guest.goto(link)
      expect(res?.status()).toBe(410)
      expect(await guest.locator('[role=alert]').innerText(T)).toContain('used as many times as it may')
    } finally {
      await guest.close()
    }
    const dora = await a.accounts.ctx
      .db('users')
      .join('accounts', 'accounts.id', 'users.account_id')
      .where('accounts.username', 'dora')
      .first('users.*')
    expect(dora).toMatchObject({ approved: true })
    // And through the API, closed registrations stay closed without an invite.
    const app = await a.appToken('read write')
    await request(a.url)
      .post('/api/v1/accounts')
      .set('Authorization', `Bearer ${app}`)
      .send({ username: 'eve', email: 'eve@example.test', password: 'long enough pw', agreement: true })
      .expect(403)
  })

  it('deletes the account with the password; B drops its copy', async () => {
    const aliceOnB = () =>
      b.accounts.ctx
        .db('accounts')
        .where({ username: 'alice', domain: hostOf(a) })
        .first()
    expect(await aliceOnB()).toBeDefined()
    await page.goto(`${a.url}/settings/delete`)
    await page.fill('#password', 'not my password', T)
    await Promise.all([page.waitForURL(`${a.url}/settings/delete`, T), page.click('button[type=submit]', T)])
    expect(await page.locator('[role=alert]').innerText(T)).toBe('The password is not right.')
    expect((await a.accounts.ctx.db('accounts').where({ id: alice.id }).first()).suspended_at).toBeNull()

    await page.fill('#password', alice.password, T)
    await Promise.all([page.waitForURL(`${a.url}/settings/delete`, T), page.click('button[type=submit]', T)])
    expect(await page.locator('h1').innerText(T)).toBe('Your account is being deleted')
    await alice.get('/api/v1/accounts/verify_credentials').expect(401)
    await eventually(async () => !(await aliceOnB()))
    // B's bob lost his follower; A keeps the name, suspended and emptied.
    await eventually(
      async () =>
        (await b.accounts.ctx.db('accounts').where({ username: 'bob' }).whereNull('domain').first())
          .followers_count === 0,
    )
    await a.drain()
    expect(await a.accounts.ctx.db('accounts').where({ id: alice.id }).first()).toMatchObject({
      username: 'alice',
      statuses_count: 0,
    })
  })
})
