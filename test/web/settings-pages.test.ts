import { readFileSync } from 'node:fs'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { ACCOUNT_PAGES, SETTINGS_MENU } from '@roost/routes'
import { launchChromium } from '@roost/testing'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'

/**
 * The settings side of the web app (apps/web; docs/architecture.md, "The web app") in headless Chromium, through the
 * gateway with its rate limits and CSP on: an avatar and a header cropped around the focal point the person places
 * (checked in the stored images' pixels), the settings pages driven as a person would and each change read back
 * through the API, and the sign-in server's account pages (apps/accounts/src/settings) as one site with the web app:
 * the same menu both ways and the same style sheet, signed in through the real sign-in page, checked by axe-core.
 */
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
const VIOLET = 'rgb(86, 58, 204)'

let stack: Stack
let browser: Browser
const contexts: BrowserContext[] = []
const cspViolations: string[] = []

beforeAll(async () => {
  stack = await startStack({
    env: {
      RATE_LIMITS: 'on',
      RATE_LIMIT_APP_REGISTRATIONS: '1000/300',
      RATE_LIMIT_API_IP: '10000/300',
      RATE_LIMIT_API_TOKEN: '10000/300',
      RATE_LIMIT_API_USER: '10000/300',
      RATE_LIMIT_SIGN_IN_IP: '1000/300',
    },
  })
  browser = await launchChromium()
}, 90_000)
afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {})
  await browser?.close()
  await stack?.stop()
})

/** A person's own browser, watching for refused scripts and styles. */
async function person(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } })
  contexts.push(context)
  const page = await context.newPage()
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text())
  })
  return page
}

/** The page is drawn: its heading is there and nothing is loading any more. */
async function settled(page: Page, heading: string) {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor()
  // A function, not a string: the web app's CSP forbids eval, which a string would need.
  await page.waitForFunction(
    () =>
      !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector(
        '[aria-busy=true], p.muted[role=status]',
      ),
  )
}

/** axe-core in the page: no serious or critical violation. */
async function accessible(page: Page) {
  await page.evaluate(AXE)
  const violations: { id: string; impact: string; nodes: { target: string[] }[] }[] = await page.evaluate(
    'axe.run().then((result) => result.violations)',
  )
  expect(
    violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${new URL(page.url()).pathname}: ${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
      ),
  ).toEqual([])
}

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
  page.locator('header.top').evaluate((top) => getComputedStyle(top).backgroundColor)

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
let user: Awaited<ReturnType<Stack['createUser']>>
let token: string
let page: Page

describe('the settings pages in a browser', () => {
  beforeAll(async () => {
    user = await stack.createUser(me)
    token = await stack.userToken('read write follow', me)
    page = await person()
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
      const bar = (globalThis as unknown as { document: Document }).document.getElementById('upload-progress')
      return bar instanceof HTMLProgressElement && bar.value > 0 && bar.value < 1
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
