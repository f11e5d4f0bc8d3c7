/**
 * The web app's pages (apps/web; docs/architecture.md, "The web app"). The gateway answers each of these paths with
 * the app's one HTML page, and its files under WEB_ASSETS_PATH; the route table declares them all. The rule: the
 * web app has `/auth/sign_up`, its OAuth callback, and every `/settings/…` and `/admin/…` page listed here; the
 * other `/settings/…` paths (password, two-factor, sessions, e-mail, invites, export, import, deletion) are the
 * server-rendered pages of apps/accounts, and `/admin/queues` is Bull Board.
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
