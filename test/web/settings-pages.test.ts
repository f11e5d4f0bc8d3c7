import type { Page } from 'playwright-core'
import sharp from 'sharp'
import { ACCOUNT_PAGES, SETTINGS_MENU } from '@roost/routes'
import { accessible, RATE_LIMITS_ON, settled, startWebBrowser } from './browser'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'

/**
 * The settings side of the web app (apps/web; docs/architecture.md, "The web app") in headless Chromium, through the
 * gateway with its rate limits and CSP on: an avatar and a header cropped around the focal point the person places
 * (checked in the stored images' pixels), the settings pages driven as a person would and each change read back
 * through the API, and the sign-in server's account pages (apps/accounts/src/settings) as one site with the web app:
 * the same menu both ways and the same style sheet, signed in through the real sign-in page, checked by axe-core.
 */
const VIOLET = 'rgb(86, 58, 204)'

let stack: Stack
let web: Awaited<ReturnType<typeof startWebBrowser>>

beforeAll(async () => {
  stack = await startStack({
    env: {
      ...RATE_LIMITS_ON,
    },
  })
  web = await startWebBrowser()
}, 90_000)
afterAll(async () => {
  await web?.close()
  await stack?.stop()
})

/** Through the OAuth sign-in (if not signed in yet) and consent pages, back to the web app's page. */
async function authorize(page: Page, who: { email: string; password: string }) {
  await page.waitForURL(/\/oauth\/authorize\?/)
  if (await page.getByLabel('E-mail address or username').isVisible()) {
    await page.getByLabel('E-mail address or username').fill(who.email)
    await page.getByLabel('Password').fill(who.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
  }
  await page.getByRole('button', { name: 'Authorize' }).click()
  await page.waitForURL((url) => !url.pathname.startsWith('/oauth') && url.pathname !== '/web/callback')
}

/** The colour of the page's top bar: the web app's violet wherever its style sheet applies. */
const topBarColour = (page: Page) =>
  page
    .locator('header.top')
    .evaluate(
      (top) =>
        (
          globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
        ).getComputedStyle(top).backgroundColor,
    )

/** An image of two colours side by side (or one above the other). */
const twoColours = (width: number, height: number, split: 'across' | 'down') =>
  sharp({ create: { width, height, channels: 3, background: '#ff0000' } })
    .composite([
      {
        input: {
          create: {
            width: split === 'across' ? width / 2 : width,
            height: split === 'across' ? height : height / 2,
            channels: 3,
            background: '#0000ff',
          },
        },
        left: split === 'across' ? width / 2 : 0,
        top: split === 'across' ? 0 : height / 2,
      },
    ])
    .png()
    .toBuffer()

/** The stored image at an address the API gave: its size and its mean red and blue. */
async function storedImage(url: string) {
  const res = await fetch(`${stack.url}${new URL(url).pathname}`)
  expect(res.status).toBe(200)
  const image = sharp(Buffer.from(await res.arrayBuffer()))
  const { width, height } = await image.metadata()
  const { channels } = await image.stats()
  return { width, height, red: channels[0]!.mean, blue: channels[2]!.mean }
}

const me = { username: 'keeper', email: 'keeper@example.test', password: 'pigeons on the roof' }
let token: string
let page: Page

describe('the settings pages in a browser', () => {
  beforeAll(async () => {
    await stack.createUser(me)
    token = await stack.userToken('read write follow', me)
    page = await web.person()
  })

  it('crops the avatar and the header around the focal point the person places, showing the upload', async () => {
    await page.goto(`${stack.url}/settings/profile`)
    await authorize(page, me)
    await settled(page, 'Profile')
    const verify = async () =>
      (await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(200)).body

    // Red on the left, blue on the right; the avatar is square, so the point chooses the colour.
    const wide = await twoColours(1200, 400, 'across')
    await page
      .getByLabel('Avatar', { exact: true })
      .setInputFiles({ name: 'wide.png', mimeType: 'image/png', buffer: wide })
    const picture = page.getByRole('img', { name: /^The chosen image/ })
    await expect(picture.getAttribute('aria-label')).resolves.toContain('50% from the left')
    await page.getByRole('img', { name: 'Your new avatar, as it will be shown' }).waitFor()
    await accessible(page)
    // Clicked near the right edge.
    const box = (await picture.boundingBox())!
    await picture.click({ position: { x: box.width * 0.9, y: box.height / 2 } })
    await expect(picture.getAttribute('aria-label')).resolves.toContain('90% from the left')
    await expect(page.getByLabel('Avatar focal point, from the left (%)').inputValue()).resolves.toBe('90')
    await page.getByRole('button', { name: 'Save profile' }).click()
    await page.getByText('Profile saved.').waitFor()
    const right = await storedImage((await verify()).avatar)
    expect(right).toMatchObject({ width: 400, height: 400 })
    expect(right.blue).toBeGreaterThan(200)
    expect(right.red).toBeLessThan(55)

    // The same image, the point moved to the left with the arrow keys.
    await page
      .getByLabel('Avatar', { exact: true })
      .setInputFiles({ name: 'wide.png', mimeType: 'image/png', buffer: wide })
    const across = page.getByLabel('Avatar focal point, from the left (%)')
    await across.focus()
    for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowLeft')
    await expect(across.inputValue()).resolves.toBe('10')
    await expect(picture.getAttribute('aria-label')).resolves.toContain('10% from the left')
    await page.getByRole('button', { name: 'Save profile' }).click()
    await page.getByText('Profile saved.').waitFor()
    const left = await storedImage((await verify()).avatar)
    expect(left).toMatchObject({ width: 400, height: 400 })
    expect(left.red).toBeGreaterThan(200)
    expect(left.blue).toBeLessThan(55)

    // A header is three times as wide as high: from a square image, red above blue, the point at the top gives red.
    // Its upload, slowed down, shows how much has gone.
    const square = await sharp(await twoColours(1200, 1200, 'down'))
      .composite([{ input: await noise(1200, 1200), blend: 'over' }])
      .png()
      .toBuffer()
    await page
      .getByLabel('Header', { exact: true })
      .setInputFiles({ name: 'tall.png', mimeType: 'image/png', buffer: square })
    const down = page.getByLabel('Header focal point, from the top (%)')
    await down.focus()
    await page.keyboard.press('Home')
    await expect(down.inputValue()).resolves.toBe('0')
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Network.enable')
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 256 * 1024,
    })
    await page.getByRole('button', { name: 'Save profile' }).click()
    // Part of it sent, not all: the bar moves.
    await page.waitForFunction(() => {
      const bar = (
        globalThis as unknown as { document: { getElementById(id: string): { value: number } | null } }
      ).document.getElementById('upload-progress')
      return bar !== null && bar.value > 0 && bar.value < 1
    })
    await page.getByText('Profile saved.').waitFor()
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    })
    const header = await storedImage((await verify()).header)
    expect(header).toMatchObject({ width: 1500, height: 500 })
    expect(header.red).toBeGreaterThan(150)
    expect(header.blue).toBeLessThan(105)
    // The saved images are shown, no longer the chosen ones.
    await expect(page.getByRole('img', { name: 'Your avatar' }).getAttribute('src')).resolves.toBe(
      (await verify()).avatar,
    )
    await accessible(page)

    // A GIF goes up as it is (a canvas would keep one frame of an animation): no focal point, the server's crop.
    const gif = await sharp({ create: { width: 300, height: 100, channels: 3, background: '#00ff00' } })
      .gif()
      .toBuffer()
    await page
      .getByLabel('Avatar', { exact: true })
      .setInputFiles({ name: 'moving.gif', mimeType: 'image/gif', buffer: gif })
    await page.getByText('A GIF is uploaded as it is').waitFor()
    await expect(page.getByLabel('Avatar focal point, from the left (%)').count()).resolves.toBe(0)
    await page.getByRole('button', { name: 'Save profile' }).click()
    await page.getByText('Profile saved.').waitFor()
    const stored = (await verify()).avatar
    expect(stored).toMatch(/\.gif$/)
    expect(await storedImage(stored)).toMatchObject({ width: 400, height: 400 })
  }, 90_000)

  it('saves the preferences, follows and features hashtags, blocks, lists and sets the notification policy', async () => {
    const read = async (path: string) => (await stack.api().get(path).set(bearer(token)).expect(200)).body

    await page.goto(`${stack.url}/settings/preferences`)
    await settled(page, 'Preferences')
    await page.getByLabel('Default visibility of new posts').selectOption('private')
    await page.getByLabel('Default language of new posts').selectOption('de')
    await page.getByLabel('Mark my media as sensitive by default').check()
    await page.getByLabel('Who may quote your new posts').selectOption('nobody')
    await page.getByRole('button', { name: 'Save preferences' }).click()
    await page.getByText('Preferences saved.').waitFor()
    expect((await read('/api/v1/accounts/verify_credentials')).source).toMatchObject({
      privacy: 'private',
      language: 'de',
      sensitive: true,
      quote_policy: 'nobody',
    })
    expect(await read('/api/v1/preferences')).toMatchObject({
      'posting:default:visibility': 'private',
      'posting:default:language': 'de',
      'posting:default:sensitive': true,
    })
    // Read back by the page itself.
    await page.reload()
    await settled(page, 'Preferences')
    await expect(page.getByLabel('Default visibility of new posts').inputValue()).resolves.toBe('private')

    // A hashtag followed and unfollowed, one featured.
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Hashtags' }).click()
    await settled(page, 'Hashtags')
    await page.getByLabel('Hashtag to follow').fill('#pigeons')
    await page.getByRole('button', { name: 'Follow', exact: true }).click()
    await page.getByRole('button', { name: 'Unfollow #pigeons' }).waitFor()
    expect((await read('/api/v1/followed_tags')).map((t: { name: string }) => t.name)).toEqual(['pigeons'])
    await page.getByRole('button', { name: 'Unfollow #pigeons' }).click()
    await page.getByText('You follow no hashtags.').waitFor()
    expect(await read('/api/v1/followed_tags')).toEqual([])
    await page.getByLabel('Hashtag to feature').fill('lofts')
    await page.getByRole('button', { name: 'Feature', exact: true }).click()
    await page.getByRole('button', { name: 'Stop featuring #lofts' }).waitFor()
    expect((await read('/api/v1/featured_tags')).map((t: { name: string }) => t.name)).toEqual(['lofts'])
    await accessible(page)
    // Followed hashtags go page by page by the API's Link header, as every list it pages: 21 are 20, then 1.
    for (let i = 1; i <= 21; i++)
      await stack
        .api()
        .post(`/api/v1/tags/bird${String(i).padStart(2, '0')}/follow`)
        .set(bearer(token))
        .expect(200)
    await page.reload()
    await settled(page, 'Hashtags')
    const followed = page.getByRole('region', { name: 'Followed hashtags' })
    await expect(followed.getByRole('listitem').count()).resolves.toBe(20)
    await expect(followed.getByRole('listitem').first().textContent()).resolves.toContain('#bird21')
    await followed.getByRole('button', { name: 'Older' }).click()
    await followed.getByRole('button', { name: 'Unfollow #bird01' }).waitFor()
    await expect(followed.getByRole('listitem').count()).resolves.toBe(1)

    // An account blocked and unblocked, a domain blocked and unblocked, from the blocks page.
    const pest = await stack.createUser({ username: 'pest' })
    await page.goto(`${stack.url}/settings/blocks`)
    await settled(page, 'Blocks and mutes')
    await page.getByLabel('Account to block (user or user@server)').fill('@pest')
    await page.getByRole('button', { name: 'Block', exact: true }).click()
    const blocked = page.getByRole('region', { name: 'Blocked accounts' })
    await blocked.getByRole('button', { name: 'Unblock @pest' }).waitFor()
    expect((await read('/api/v1/blocks')).map((a: { id: string }) => a.id)).toEqual([pest.accountId])
    await accessible(page)
    await blocked.getByRole('button', { name: 'Unblock @pest' }).click()
    await blocked.getByText('You block no one.').waitFor()
    expect(await read('/api/v1/blocks')).toEqual([])
    await page.getByLabel('Domain', { exact: true }).fill('spam.example')
    await page.getByRole('button', { name: 'Block domain' }).click()
    const domains = page.getByRole('region', { name: 'Blocked domains' })
    await domains.getByRole('button', { name: 'Unblock spam.example' }).click()
    await domains.getByText('You block no domain.').waitFor()
    expect(await read('/api/v1/domain_blocks')).toEqual([])
    // An unknown handle is said so, and nothing is blocked.
    await page.getByLabel('Account to block (user or user@server)').fill('nobody-here')
    await page.getByRole('button', { name: 'Block', exact: true }).click()
    await page.getByRole('form', { name: 'Block an account' }).getByRole('alert').waitFor()
    expect(await read('/api/v1/blocks')).toEqual([])

    // A list made, renamed, a member (someone followed) added and removed, the list deleted.
    const friend = await stack.createUser({ username: 'friend' })
    await stack.api().post(`/api/v1/accounts/${friend.accountId}/follow`).set(bearer(token)).expect(200)
    await page.goto(`${stack.url}/settings/lists`)
    await settled(page, 'Lists')
    await page.getByLabel('Title of the new list').fill('Birds')
    await page.getByRole('button', { name: 'Make list' }).click()
    await page.getByRole('heading', { name: 'Birds' }).waitFor()
    const [list] = await read('/api/v1/lists')
    expect(list).toMatchObject({ title: 'Birds' })
    await page.getByRole('button', { name: 'Edit Birds' }).click()
    const rename = page.getByRole('form', { name: 'Rename Birds' })
    await rename.getByLabel('New title').fill('Pigeons')
    await rename.getByRole('button', { name: 'Rename' }).click()
    await page.getByRole('heading', { name: 'Pigeons' }).waitFor()
    expect(await read(`/api/v1/lists/${list.id}`)).toMatchObject({ title: 'Pigeons' })
    const add = page.getByRole('form', { name: 'Add someone to Pigeons' })
    await add.getByLabel('Handle (user or user@server)').fill('friend')
    await add.getByRole('button', { name: 'Add to the list' }).click()
    const members = page.getByRole('region', { name: 'Members of Pigeons' })
    await members.getByRole('button', { name: 'Remove @friend' }).waitFor()
    expect((await read(`/api/v1/lists/${list.id}/accounts`)).map((a: { id: string }) => a.id)).toEqual([
      friend.accountId,
    ])
    await accessible(page)
    await members.getByRole('button', { name: 'Remove @friend' }).click()
    await members.getByText('No one is on this list yet.').waitFor()
    expect(await read(`/api/v1/lists/${list.id}/accounts`)).toEqual([])
    await page.getByRole('button', { name: 'Delete Pigeons' }).click()
    await page.getByText('No lists yet.').waitFor()
    expect(await read('/api/v1/lists')).toEqual([])

    // The notification policy.
    await page.goto(`${stack.url}/settings/notifications`)
    await settled(page, 'Notifications')
    await page.getByLabel('New accounts (younger than 30 days)').selectOption('drop')
    await page.getByLabel('People you don’t follow').selectOption('filter')
    await page.getByRole('button', { name: 'Save policy' }).click()
    await page.getByText('Policy saved.').waitFor()
    expect(await read('/api/v2/notifications/policy')).toMatchObject({
      for_new_accounts: 'drop',
      for_not_following: 'filter',
    })
    await accessible(page)
  }, 90_000)

  it('makes the web app and the sign-in server’s account pages one site, all accessible', async () => {
    // The web app's menu leads to every account page of the sign-in server.
    await page.goto(`${stack.url}/settings/profile`)
    await settled(page, 'Profile')
    const menu = page.getByRole('navigation', { name: 'Settings' })
    for (const [path, label] of ACCOUNT_PAGES)
      await expect(menu.getByRole('link', { name: label, exact: true }).getAttribute('href')).resolves.toBe(
        path,
      )
    const webColour = await topBarColour(page)
    expect(webColour).toBe(VIOLET)

    // Someone new to this browser signs in on the sign-in server's own page, and comes back where they were going.
    const visitor = await web.person()
    await visitor.goto(`${stack.url}/settings/sessions`)
    await visitor.waitForURL(/\/auth\/sign_in\?return_to=/)
    await accessible(visitor)
    await visitor.getByLabel('E-mail address or username').fill(me.email)
    await visitor.getByLabel('Password').fill(me.password)
    await visitor.getByRole('button', { name: 'Sign in' }).click()
    await visitor.waitForURL(`${stack.url}/settings/sessions`)
    for (const [path, label] of ACCOUNT_PAGES) {
      await visitor.goto(`${stack.url}${path}`)
      expect(new URL(visitor.url()).pathname).toBe(path)
      // The same frame and look: the web app's style sheet, its menu back to the web app's pages, this page marked.
      expect(await topBarColour(visitor)).toBe(webColour)
      const nav = visitor.getByRole('navigation', { name: 'Settings' })
      for (const [webPath, webLabel] of SETTINGS_MENU)
        await expect(
          nav.getByRole('link', { name: webLabel, exact: true }).getAttribute('href'),
        ).resolves.toBe(webPath)
      await expect(
        nav.getByRole('link', { name: label, exact: true }).getAttribute('aria-current'),
      ).resolves.toBe('page')
      await accessible(visitor)
    }
    // And back to the web app from there, which signs in with the same session (only the consent is asked).
    await visitor.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Filters' }).click()
    await authorize(visitor, me)
    await settled(visitor, 'Filters')

    // The password is changed on its page: the old one and every token made with it stop working, this page's
    // sign-in goes on.
    await visitor.goto(`${stack.url}/settings/password`)
    await visitor.getByLabel('Current password').fill('not my password')
    await visitor.getByLabel('New password (8 to 72 characters)').fill('a new password for pigeons')
    await visitor.getByLabel('The new password again').fill('a new password for pigeons')
    await visitor.getByRole('button', { name: 'Change my password' }).click()
    await visitor.getByRole('alert').filter({ hasText: 'Current password is invalid.' }).waitFor()
    await accessible(visitor)
    await visitor.getByLabel('Current password').fill(me.password)
    await visitor.getByLabel('New password (8 to 72 characters)').fill('a new password for pigeons')
    await visitor.getByLabel('The new password again').fill('a new password for pigeons')
    await visitor.getByRole('button', { name: 'Change my password' }).click()
    await visitor.getByRole('status').filter({ hasText: 'Your password is changed.' }).waitFor()
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(token)).expect(401)
    await visitor.goto(`${stack.url}/settings/email`)
    expect(new URL(visitor.url()).pathname).toBe('/settings/email')
    const fresh = await stack.userToken('read', { email: me.email, password: 'a new password for pigeons' })
    await stack.api().get('/api/v1/accounts/verify_credentials').set(bearer(fresh)).expect(200)
    expect(web.cspViolations).toEqual([])
  }, 90_000)
})

/** Grey noise over a picture, so that its PNG is large enough for an upload to take a while. */
async function noise(width: number, height: number) {
  const pixels = Buffer.alloc(width * height * 4)
  for (let i = 0; i < pixels.length; i += 4) pixels[i + 3] = Math.floor(Math.random() * 40)
  return sharp(pixels, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer()
}
