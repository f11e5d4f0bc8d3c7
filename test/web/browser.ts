import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { launchChromium } from '@roost/testing'

/**
 * What the web app's browser tests share (test/web/*.test.ts): a stack with the rate limits on, as production runs
 * them, with budgets no test reaches; a Chromium whose pages report refused scripts and styles; waiting for a page
 * to be drawn; axe-core in the page.
 */
export const RATE_LIMITS_ON = {
  RATE_LIMITS: 'on',
  RATE_LIMIT_APP_REGISTRATIONS: '1000/300',
  RATE_LIMIT_API_IP: '10000/300',
  RATE_LIMIT_API_TOKEN: '10000/300',
  RATE_LIMIT_API_USER: '10000/300',
  RATE_LIMIT_SIGN_IN_IP: '1000/300',
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')

/** A Chromium in which each `person()` is someone's own browser (their storage), watched for CSP violations. */
export async function startWebBrowser() {
  const browser = await launchChromium()
  const cspViolations: string[] = []
  return {
    cspViolations,
    async person(): Promise<Page> {
      const context = await browser.newContext({ viewport: { width: 1100, height: 900 } })
      // A page load is two or three requests, a script to compile and the app's API calls, beside two jest workers
      // on a loaded 2-core machine: twice Playwright's 30 s before a wait fails (the tests' own timeouts allow it).
      context.setDefaultTimeout(60_000)
      const page = await context.newPage()
      page.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text())
      })
      return page
    },
    close: () => browser.close(),
  }
}

/** The page is drawn: its heading is there and nothing is loading any more. */
export async function settled(page: Page, heading: string) {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor()
  // A function, not a string: the page's CSP forbids eval, which a string would need.
  await page.waitForFunction(
    () =>
      !(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector(
        '[aria-busy=true], p.muted[role=status]',
      ),
  )
}

/** axe-core in the page: no serious or critical violation. */
export async function accessible(page: Page) {
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
