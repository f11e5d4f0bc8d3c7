import { z } from 'zod'
import { param } from '../params'

/** GET /api/v1/admin/accounts */
export const adminAccountsParams = z.object({
  ...param.page,
  local: param.bool(),
  remote: param.bool(),
  active: param.bool(),
  pending: param.bool(),
  disabled: param.bool(),
  silenced: param.bool(),
  suspended: param.bool(),
  staff: param.bool(),
  status: param.text(),
  username: param.text(),
  email: param.text(),
})

/** GET /api/v2/admin/accounts (Mastodon's AccountFilter); unknown `origin`, `status` or `permissions` are 400s. */
export const adminAccountsV2Params = z.object({
  ...param.page,
  origin: param.text(),
  status: param.text(),
  permissions: param.text(),
  role_ids: param.list(),
  invited_by: param.text(),
  username: param.text(),
  display_name: param.text(),
  by_domain: param.text(),
  email: param.text(),
  ip: param.text(),
})

export const ACCOUNT_ACTIONS = ['none', 'sensitive', 'silence', 'suspend', 'disable'] as const
export type AccountAction = (typeof ACCOUNT_ACTIONS)[number]

/** POST /api/v1/admin/accounts/:id/action — a `type` not in the list, whatever its shape, is a 422 (handler). */
export const accountActionParams = z.object({
  type: param.checkedByHandler({ type: 'string', enum: [...ACCOUNT_ACTIONS] }),
  text: param.text({ maxChars: 5000 }),
  report_id: param.text(),
  warning_preset_id: param.text(),
  send_email_notification: param.bool(),
})

/** POST /api/v1/admin/ip_blocks and PUT /api/v1/admin/ip_blocks/:id; validated by the handler (Rails' texts). */
export const ipBlockParams = z.object({
  ip: param.text(),
  severity: param.text(),
  comment: param.text(),
  expires_in: param.text(),
})

/** POST /api/v1/admin/domain_blocks and PUT /api/v1/admin/domain_blocks/:id (`domain` is only read on create). */
export const adminDomainBlockParams = z.object({
  domain: param.text(),
  severity: param.checkedByHandler({ type: 'string', enum: ['silence', 'suspend', 'noop'] }),
  reject_media: param.bool(),
  reject_reports: param.bool(),
  private_comment: param.text(),
  public_comment: param.text(),
  obfuscate: param.bool(),
})

/** POST /api/v1/admin/relays (a Roost addition): the relay's inbox, or a LitePub relay's actor. */
export const adminRelayParams = z.object({
  inbox_url: param.text(),
})

/** GET /api/v1/admin/instances (a Roost addition): offset pages, as the trends. */
export const adminInstancesParams = z.object({
  limit: param.page.limit,
  offset: param.checkedByHandler({ type: 'integer' }),
})

/** GET /api/v1/admin/reports */
export const adminReportsParams = z.object({
  ...param.page,
  resolved: param.bool(),
  account_id: param.text(),
  target_account_id: param.text(),
})

/**
 * POST /api/v1/admin/custom_emojis (a Roost addition: Mastodon manages emojis in its web admin only,
 * docs/emoji.md): a shortcode and its image, with a category and whether pickers show it.
 */
export const adminCreateEmojiParams = z.object({
  shortcode: param.text(),
  image: param.file('The image: PNG, GIF or WebP, smaller than 256 KB (fitted into 400×400)'),
  category: param.text(),
  visible_in_picker: param.bool(),
})

/** PATCH /api/v1/admin/custom_emojis/:id (a Roost addition): only the given settings change. */
export const adminUpdateEmojiParams = z.object({
  category: param.text(),
  visible_in_picker: param.bool(),
  disabled: param.bool(),
})

/** GET /api/v1/admin/custom_emojis (a Roost addition): `local`, `remote` or both; a domain; a shortcode part. */
export const adminEmojisParams = z.object({
  ...param.page,
  local: param.bool(),
  remote: param.bool(),
  by_domain: param.text(),
  shortcode: param.text(),
})

/** PUT /api/v1/admin/reports/:id (Mastodon's): the category and the rules cited (with `violation`). */
export const adminUpdateReportParams = z.object({
  category: param.oneOf(
    ['spam', 'legal', 'violation', 'other'],
    'Validation failed: Category is not included in the list',
  ),
  rule_ids: param.list(),
})

/**
 * POST /api/v1/admin/roles and PUT /api/v1/admin/roles/:id (Roost additions; docs/moderation.md): a role's name,
 * colour (`#rgb` or `#rrggbb`), position, whether profiles show it, and its permissions, given either as
 * Mastodon's bit set (`permissions`, the Role entity's decimal text) or by names (`permissions_as_keys[]`).
 */
export const adminRoleParams = z.object({
  name: param.text({ maxChars: 100 }),
  color: param.text({ maxChars: 7 }),
  position: param.int(),
  highlighted: param.bool(),
  permissions: param.checkedByHandler({
    type: 'string',
    description: 'The permission bits, as a decimal text',
  }),
  permissions_as_keys: param.list(),
})

/** POST /api/v1/admin/accounts/:id/role (a Roost addition): the role to give; blank takes the role away. */
export const adminAssignRoleParams = z.object({
  role_id: param.text(),
})

/** GET /api/v1/admin/action_logs (a Roost addition): pages, newest first, filtered by who acted, what, on what. */
export const adminActionLogParams = z.object({
  ...param.page,
  account_id: param.text(),
  action: param.text(),
  target_type: param.text(),
  target_id: param.text(),
})

/**
 * POST /api/v1/admin/webhooks and PUT /api/v1/admin/webhooks/:id (Roost additions; docs/moderation.md): where
 * to POST (an http(s) URL), which events (`events[]`, Mastodon's names), and whether it is on.
 */
export const adminWebhookParams = z.object({
  url: param.text({ maxChars: 2048 }),
  events: param.list(),
  enabled: param.bool(),
})

/**
 * PUT /api/v1/admin/settings (a Roost addition; docs/moderation.md, "Server settings"): Mastodon's setting names;
 * only the given ones change.
 */
export const adminSettingsParams = z.object({
  site_title: param.text({ maxChars: 200 }),
  site_short_description: param.text({ maxChars: 2000 }),
  site_extended_description: param.text({ maxChars: 100_000 }),
  site_contact_username: param.text({ maxChars: 30 }),
  site_contact_email: param.text({ maxChars: 320 }),
  registrations_mode: param.oneOf(
    ['open', 'approved', 'none'],
    'Validation failed: Registrations mode is not included in the list',
  ),
  closed_registrations_message: param.text({ maxChars: 5000 }),
  require_invite_text: param.bool(),
  languages: param.list(),
  limited_federation_mode: param.bool(),
})

/** POST /api/v1/admin/rules and PUT /api/v1/admin/rules/:id (Roost additions): a rule's text, hint and place. */
export const adminRuleParams = z.object({
  text: param.text({ maxChars: 1000 }),
  hint: param.text({ maxChars: 2000 }),
  priority: param.int(),
})

/**
 * POST /api/v1/admin/accounts/:id/notes and /api/v1/admin/reports/:id/notes (Roost additions): the note, at most
 * Mastodon's 2000 characters (AccountModerationNote and ReportNote).
 */
export const adminNoteParams = z.object({
  content: param.text({ maxChars: 2000 }),
})

/**
 * POST /api/v1/admin/announcements and PUT /api/v1/admin/announcements/:id (Roost additions): the text, when it
 * runs (ISO 8601 times; blank clears), whether all day, and on create whether it is published at once.
 */
export const adminAnnouncementParams = z.object({
  text: param.text({ maxChars: 5000 }),
  starts_at: param.text(),
  ends_at: param.text(),
  all_day: param.bool(),
  published: param.bool(),
})

/** POST /api/v1/admin/measures (Mastodon's): the measures, and the days they span (dates, inclusive). */
export const adminMeasuresParams = z.object({
  keys: param.list(),
  start_at: param.text(),
  end_at: param.text(),
})

/** POST /api/v1/admin/dimensions (Mastodon's): as measures, with how many entries each (default 10). */
export const adminDimensionsParams = z.object({
  keys: param.list(),
  start_at: param.text(),
  end_at: param.text(),
  limit: param.int(),
})

/** POST /api/v1/admin/retention (Mastodon's): the cohorts' span and their period. */
export const adminRetentionParams = z.object({
  start_at: param.text(),
  end_at: param.text(),
  frequency: param.oneOf(['day', 'month'], 'Validation failed: Frequency is not included in the list'),
})

/** POST /api/v1/admin/domain_allows and /api/v1/admin/email_domain_blocks (Mastodon's): the domain. */
export const adminDomainParams = z.object({
  domain: param.text({ maxChars: 253 }),
})

/** POST /api/v1/admin/canonical_email_blocks (Mastodon's): an address to canonicalise, or the hash itself. */
export const adminCanonicalEmailBlockParams = z.object({
  email: param.text({ maxChars: 320 }),
  canonical_email_hash: param.text({ maxChars: 64 }),
})

/** POST /api/v1/admin/canonical_email_blocks/test (Mastodon's): the address to check. */
export const adminCanonicalEmailTestParams = z.object({
  email: param.text({ maxChars: 320 }),
})
