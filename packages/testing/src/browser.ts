import { chromium } from 'playwright-core'

/**
 * Debian's Chromium, headless, for the page tests (playwright-core never downloads a browser). The flags keep it
 * from calling home, which this network refuses.
 */
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}
