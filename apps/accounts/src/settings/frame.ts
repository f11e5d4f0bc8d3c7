import { ACCOUNT_PAGES, SETTINGS_MENU, WEB_ASSETS_PATH } from '@roost/routes'
import { escape } from '../oauth/pages'

/**
 * The frame of the sign-in server's settings pages, the web app's own (apps/web/src/main.tsx): its header, the
 * settings menu both share (SETTINGS_MENU and ACCOUNT_PAGES, packages/routes/src/web.ts) and its style sheet, which
 * the gateway serves, so that the settings are one site (docs/architecture.md, "The web app"). No inline style or
 * script: the pages' CSP allows styles from this origin. `path` is the menu's entry to mark as the current page.
 */
export function settingsLayout(path: string, title: string, body: string, heading = title) {
  const link = ([href, label]: readonly [string, string]) =>
    `<li><a href="${escape(href)}"${href === path ? ' aria-current="page"' : ''}>${escape(label)}</a></li>`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Roost</title><link rel="stylesheet" href="${WEB_ASSETS_PATH}/app.css"></head>
<body><div class="frame"><a class="skip" href="#content">Skip to the page</a>
<header class="top"><span class="brand">Roost</span></header>
<div class="columns"><nav class="menu" aria-label="Settings"><ul>${SETTINGS_MENU.map(link).join('')}
<li class="menu-heading" aria-hidden="true">Account and security</li>${ACCOUNT_PAGES.map(link).join('')}</ul></nav>
<main id="content" class="plain"><h1>${escape(heading)}</h1>
${body}
</main></div></div></body></html>`
}
