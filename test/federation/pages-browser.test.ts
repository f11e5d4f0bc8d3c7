import type { Browser } from 'playwright-core'
import { launchChromium } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from '../accounts/social/helpers'

/**
 * The profile and status pages (docs/federation.md, "Pages") in a real browser: the actor URL an app links to
 * leads a browser to the profile page, which shows the account, its public posts and OpenGraph tags, and a post's
 * link opens its status page.
 */
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

it('leads from the actor URL to the profile page, and from a post to its status page', async () => {
  const erin = await signUp(stack, { username: 'erin' })
  await stack.accounts.ctx
    .db('accounts')
    .where({ id: erin.id })
    .update({ display_name: 'Erin E.', note: 'Writes about birds' })
  const id = await post(erin, 'Robins are back in town')
  await post(erin, { status: 'Only for my followers', visibility: 'private' })

  const page = await browser.newPage()
  try {
    // An app's link to the actor: the browser is redirected to the profile page.
    const res = await page.goto(`${stack.url}/users/erin`)
    expect(res?.status()).toBe(200)
    expect(page.url()).toBe(`${stack.url}/@erin`)
    const og = (property: string) =>
      page.locator(`meta[property="og:${property}"]`).getAttribute('content', { timeout: 30_000 })
    expect(await og('title')).toMatch(/^Erin E\. \(@erin@/)
    expect(await og('description')).toBe('Writes about birds')
    expect(await og('url')).toBe(`${stack.url}/@erin`)
    const text = await page.locator('body').innerText({ timeout: 30_000 })
    expect(text).toContain('Erin E.')
    expect(text).toContain('Robins are back in town')
    expect(text).not.toContain('Only for my followers')

    // The post's link opens its page.
    await Promise.all([
      page.waitForURL(`${stack.url}/@erin/${id}`, { timeout: 30_000 }),
      page.locator(`a[href="${stack.url}/@erin/${id}"]`).first().click({ timeout: 30_000 }),
    ])
    expect(await og('type')).toBe('article')
    expect(await page.locator('body').innerText({ timeout: 30_000 })).toContain('Robins are back in town')
  } finally {
    await page.close()
  }
})
