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
