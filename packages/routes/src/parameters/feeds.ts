import { z } from 'zod'
import { param } from '../params'

/** GET /api/v1/timelines/home — `local` is accepted and carried into the Link header, but ignored (as Mastodon). */
export const homeTimelineParams = z.object({ ...param.page, local: param.bool() })
