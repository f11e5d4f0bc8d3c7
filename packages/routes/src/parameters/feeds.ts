import { z } from 'zod'
import { param } from '../params'

/** GET /api/v1/timelines/home — `local` is accepted and carried into the Link header, but ignored (as Mastodon). */
export const homeTimelineParams = z.object({ ...param.page, local: param.bool() })

/** GET /api/v1/timelines/tag/:hashtag — `any`, `all`, `none` are cut to their first 4 names (Mastodon). */
export const tagTimelineParams = z.object({
  ...param.page,
  any: param.list(),
  all: param.list(),
  none: param.list(),
  local: param.bool(),
  remote: param.bool(),
  only_media: param.bool(),
})

/** GET /api/v1/followed_tags */
export const followedTagsParams = z.object({ ...param.page })
