import { z } from 'zod'
import { param } from '../params'

export const REPLIES_POLICIES = ['list', 'followed', 'none'] as const

/**
 * POST /api/v1/lists, PUT and PATCH /api/v1/lists/:id — a missing or blank title and a title over 256 characters
 * are the list's own validation errors (422 "Title can't be blank", "Title is too long …"), as in Mastodon.
 */
export const listParams = z.object({
  title: param.text(),
  replies_policy: param.oneOf(REPLIES_POLICIES, 'Replies policy is not included in the list'),
  exclusive: param.bool(),
})

/** POST and DELETE /api/v1/lists/:id/accounts */
export const listAccountIdsParams = z.object({ account_ids: param.list() })

/** GET /api/v1/lists/:id/accounts — `limit=0` lists every member, unpaged (Mastodon). */
export const listMembersParams = z.object({ ...param.page })

/** GET /api/v1/timelines/list/:id */
export const listTimelineParams = z.object({ ...param.page })
