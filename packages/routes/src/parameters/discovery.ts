import { z } from 'zod'
import { param } from '../params'

/**
 * Parameters of the calls apps make at start-up and of discovery (docs/discovery.md): markers, preferences,
 * announcements, account extras, filters, grouped notifications, search, trends, suggestions, the directory.
 */

/** GET /api/v1/markers — `timeline[]=home&timeline[]=notifications` (or a lone `timeline=`). */
export const getMarkersParams = z.object({ timeline: param.list() })

const marker = () => param.object({ last_read_id: param.text() })

/** POST /api/v1/markers — `home[last_read_id]`, `notifications[last_read_id]`; other keys are ignored. */
export const saveMarkersParams = z.object({ home: marker(), notifications: marker() })

/** POST /api/v1/accounts/:id/note — a blank comment removes the note. */
export const accountNoteParams = z.object({ comment: param.text({ maxChars: 2000 }) })

/** GET /api/v1/accounts/familiar_followers?id[]= */
export const familiarFollowersParams = z.object({ id: param.list() })

/** GET /api/v1/domain_blocks */
export const domainBlocksParams = z.object({ ...param.page })

/** POST and DELETE /api/v1/domain_blocks */
export const domainBlockParams = z.object({ domain: param.text({ maxChars: 253 }) })

export const REPORT_CATEGORIES = ['spam', 'legal', 'violation', 'other'] as const

/** POST /api/v1/reports */
export const reportParams = z.object({
  account_id: param.text(),
  status_ids: param.list(),
  comment: param.text({ maxChars: 1000 }),
  category: param.oneOf(REPORT_CATEGORIES, 'Category is not included in the list'),
  rule_ids: param.list(),
  forward: param.bool(),
  forward_to_domains: param.list(),
})

export const FILTER_ACTIONS = ['warn', 'hide', 'blur'] as const

/** POST and PUT /api/v2/filters (and :id) */
export const filterParams = z.object({
  title: param.text({ maxChars: 256 }),
  context: param.list(),
  filter_action: param.oneOf(FILTER_ACTIONS, 'Filter action is not included in the list'),
  /** Seconds from now; blank: never. */
  expires_in: param.text(),
  keywords_attributes: param.objects({
    id: param.text(),
    keyword: param.text({ maxChars: 512 }),
    whole_word: param.bool(),
    _destroy: param.bool(),
  }),
})

/** POST /api/v2/filters/:id/keywords, PUT /api/v2/filters/keywords/:id */
export const filterKeywordParams = z.object({
  keyword: param.text({ maxChars: 512 }),
  whole_word: param.bool(),
})

/** POST /api/v2/filters/:id/statuses */
export const filterStatusParams = z.object({ status_id: param.text() })

/** POST and PUT /api/v1/filters (and :id): the v1 view, one keyword per filter */
export const filterV1Params = z.object({
  phrase: param.text({ maxChars: 512 }),
  context: param.list(),
  irreversible: param.bool(),
  whole_word: param.bool(),
  expires_in: param.text(),
})

/** GET /api/v2/notifications */
const policyValue = (name: string) =>
  param.oneOf(['accept', 'filter', 'drop'], `${name} is not included in the list`)

/** PATCH /api/v2/notifications/policy — each `for_…` field `accept`, `filter` or `drop`; those left out keep theirs. */
export const notificationPolicyParams = z.object({
  for_not_following: policyValue('For not following'),
  for_not_followers: policyValue('For not followers'),
  for_new_accounts: policyValue('For new accounts'),
  for_private_mentions: policyValue('For private mentions'),
  for_limited_accounts: policyValue('For limited accounts'),
})

/** PATCH /api/v1/notifications/policy (Mastodon's v1 shape): booleans, true meaning `filter`, false `accept`. */
export const notificationPolicyV1Params = z.object({
  filter_not_following: param.bool(),
  filter_not_followers: param.bool(),
  filter_new_accounts: param.bool(),
  filter_private_mentions: param.bool(),
})

/** POST /api/v1/notifications/requests/accept and /dismiss — `id[]`, the requests (unknown ones are skipped). */
export const notificationRequestsBulkParams = z.object({ id: param.list() })

export const groupedNotificationsParams = z.object({
  ...param.page,
  types: param.list(),
  exclude_types: param.list(),
  grouped_types: param.list(),
  /** `full` (default) or `partial_avatars`; else 400 (checked by the handler, as Mastodon's text is its own). */
  expand_accounts: param.checkedByHandler({ type: 'string', enum: ['full', 'partial_avatars'] }),
  include_filtered: param.bool(),
})

/** GET /api/v2/notifications/:id (a group key) */
export const notificationGroupParams = z.object({
  expand_accounts: param.checkedByHandler({ type: 'string', enum: ['full', 'partial_avatars'] }),
})

/** GET /api/v1/notifications/unread_count and /api/v2/notifications/unread_count */
export const unreadCountParams = z.object({
  limit: param.page.limit,
  types: param.list(),
  exclude_types: param.list(),
  grouped_types: param.list(),
})

/** GET /api/v1/trends/tags, /trends/statuses, /trends/links (offset paging) */
export const trendsParams = z.object({
  limit: param.page.limit,
  offset: param.checkedByHandler({ type: 'integer' }),
})

/** GET /api/v2/suggestions and /api/v1/suggestions */
export const suggestionsParams = z.object({ limit: param.page.limit })

/** GET /api/v1/directory */
export const directoryParams = z.object({
  limit: param.page.limit,
  offset: param.checkedByHandler({ type: 'integer' }),
  /** `active` (default) or `new`. */
  order: param.text(),
  local: param.bool(),
})

/** POST /api/v1/featured_tags */
export const featuredTagParams = z.object({ name: param.requiredText({ maxChars: 256 }) })
