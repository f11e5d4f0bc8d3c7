import { z } from 'zod'
import { VISIBILITIES } from '@roost/events'
import { param } from '../params'

const visibility = () => param.oneOf(VISIBILITIES, 'Visibility is not included in the list')

/** Mastodon's limit on media descriptions (alt text). */
export const MAX_MEDIA_DESCRIPTION = 1500

/** `poll[options][]`, `poll[expires_in]` (seconds), `poll[multiple]`, `poll[hide_totals]`. */
const poll = () =>
  param.object({
    options: param.list(),
    expires_in: param.int(),
    multiple: param.bool(),
    hide_totals: param.bool(),
  })

/** POST /api/v1/statuses */
export const postStatusParams = z.object({
  status: param.text({ maxChars: 10_000 }),
  spoiler_text: param.text({ maxChars: 10_000 }),
  sensitive: param.bool(),
  visibility: visibility(),
  language: param.text({ maxChars: 8 }),
  in_reply_to_id: param.text(),
  media_ids: param.list(),
  poll: poll(),
  /** ISO 8601; at least 5 minutes ahead it schedules the status instead (docs/statuses.md), in the past posts now. */
  scheduled_at: param.text(),
  /** The status to quote (docs/statuses.md, "Quotes"). */
  quoted_status_id: param.text(),
  /** public, followers or nobody; the user's default when not given. */
  quote_approval_policy: param.text(),
})

/** PUT /api/v1/scheduled_statuses/:id */
export const updateScheduledStatusParams = z.object({ scheduled_at: param.text() })

/** PUT (and PATCH) /api/v1/statuses/:id: the whole new version of the status. */
export const updateStatusParams = z.object({
  status: param.text({ maxChars: 10_000 }),
  spoiler_text: param.text({ maxChars: 10_000 }),
  sensitive: param.bool(),
  language: param.text({ maxChars: 8 }),
  media_ids: param.list(),
  /** `focus` is `"x,y"` (docs/media.md, "Focal points and descriptions"); `thumbnail` is accepted and ignored. */
  media_attributes: param.objects({
    id: param.text(),
    description: param.text({ maxChars: MAX_MEDIA_DESCRIPTION }),
    focus: param.text(),
    thumbnail: param.file('A custom thumbnail (ignored)'),
  }),
  poll: poll(),
  /** public, followers or nobody (Mastodon 4.5); unchanged when not given. */
  quote_approval_policy: param.text(),
})

/** POST /api/v1/polls/:id/votes: the indexes of the chosen options. */
export const voteParams = z.object({ choices: param.list() })

/** GET /api/v1/statuses/:id/quotes */
export const statusQuotesParams = z.object(param.page)

/** PUT /api/v1/statuses/:id/interaction_policy */
export const interactionPolicyParams = z.object({ quote_approval_policy: param.text() })

/** GET /api/v1/statuses?id[]= */
export const listStatusesParams = z.object({ id: param.list() })

/** POST /api/v1/statuses/:id/reblog */
export const reblogParams = z.object({ visibility: visibility() })

/** POST /api/v1/media and /api/v2/media */
export const uploadMediaParams = z.object({
  file: param.file('The image, video, audio file or animated GIF'),
  thumbnail: param.file('A custom preview for a video or audio file (an image)'),
  description: param.text({ maxChars: MAX_MEDIA_DESCRIPTION }),
  /** `"x,y"`, each from -1.0 to 1.0, read loosely as Mastodon does (docs/media.md, "Focal points and descriptions"). */
  focus: param.text(),
})

/** PUT /api/v1/media/:id */
export const updateMediaParams = z.object({
  thumbnail: param.file('A custom preview for a video or audio file (an image)'),
  description: param.text({ maxChars: MAX_MEDIA_DESCRIPTION }),
  /** `"x,y"`, as on upload. */
  focus: param.text(),
})

/** GET /api/v1/timelines/public */
export const publicTimelineParams = z.object({
  ...param.page,
  local: param.bool(),
  remote: param.bool(),
  only_media: param.bool(),
})

/** GET /api/v1/notifications */
export const notificationsParams = z.object({
  ...param.page,
  types: param.list(),
  exclude_types: param.list(),
  account_id: param.text(),
  /** Include notifications the notification policy filtered (docs/discovery.md). */
  include_filtered: param.bool(),
})
