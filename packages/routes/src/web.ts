/**
 * The web app's pages (apps/web; docs/architecture.md, "The web app"). The gateway answers each of these paths with
 * the app's one HTML page, and its files under WEB_ASSETS_PATH; the route table declares them all. The rule: the
 * web app has `/auth/sign_up`, its OAuth callback, and every `/settings/…` and `/admin/…` page listed here; the
 * other `/settings/…` paths (ACCOUNT_PAGES: password, two-factor, sessions, e-mail, invites, export, import,
 * deletion) are the server-rendered pages of apps/accounts, and `/admin/queues` is Bull Board.
 *
 * Adding a page: its path here, and a file in apps/web/src/pages registered in apps/web/src/pages/index.ts (typed
 * by this list, so neither can miss the other).
 */
export const WEB_PAGES = [
  '/auth/sign_up',
  '/web/callback',
  '/settings/profile',
  '/settings/preferences',
  '/settings/filters',
  '/settings/tags',
  '/settings/blocks',
  '/settings/lists',
  '/settings/notifications',
  '/settings/aliases',
  '/admin',
  '/admin/reports',
  '/admin/reports/:id',
  '/admin/accounts',
  '/admin/accounts/:id',
  '/admin/domain_blocks',
  '/admin/ip_blocks',
  '/admin/custom_emojis',
  '/admin/instances',
  '/admin/relays',
  '/admin/roles',
  '/admin/action_logs',
  '/admin/webhooks',
  '/admin/settings',
  '/admin/rules',
  '/admin/announcements',
  '/admin/domain_allows',
  '/admin/email_domain_blocks',
  '/admin/canonical_email_blocks',
  '/admin/trends',
] as const

export type WebPage = (typeof WEB_PAGES)[number]

/** Where the gateway serves the web app's built files (apps/web/dist). */
export const WEB_ASSETS_PATH = '/web-assets'
/** The built files it serves there, and nothing else. */
export const WEB_ASSETS = ['app.js', 'app.css'] as const

/**
 * The settings menu, the same on the web app's pages and on the sign-in server's (one site; docs/architecture.md,
 * "The web app"): the web app's settings pages, then ACCOUNT_PAGES.
 */
export const SETTINGS_MENU: readonly (readonly [WebPage, string])[] = [
  ['/settings/profile', 'Profile'],
  ['/settings/preferences', 'Preferences'],
  ['/settings/filters', 'Filters'],
  ['/settings/tags', 'Hashtags'],
  ['/settings/blocks', 'Blocks and mutes'],
  ['/settings/lists', 'Lists'],
  ['/settings/notifications', 'Notifications'],
  ['/settings/aliases', 'Moving'],
]
/**
 * The account and security pages of apps/accounts/src/settings, under "Account and security" in the settings menu:
 * they are signed in with the sign-in session, not a token, and so are not the web app's.
 */
export const ACCOUNT_PAGES = [
  ['/settings/password', 'Password'],
  ['/settings/two_factor', 'Two-factor authentication'],
  ['/settings/sessions', 'Apps and sessions'],
  ['/settings/email', 'E-mail address'],
  ['/settings/invites', 'Invites'],
  ['/settings/export', 'Export'],
  ['/settings/imports', 'Import'],
  ['/settings/delete', 'Delete account'],
] as const
