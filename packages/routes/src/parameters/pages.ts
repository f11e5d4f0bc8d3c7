import { z } from 'zod'
import { param } from '../params'

/**
 * The lists that take only paging parameters (followers, following, blocks, mutes, follow requests, reblogged_by,
 * favourited_by, bookmarks, favourites, scheduled statuses, conversations, IP blocks): one schema, so their shared page helpers read with it.
 */
export const pageParams = z.object(param.page)
