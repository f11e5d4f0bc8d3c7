import type { Request, Response } from 'express'
import { homeTimelineParams, readParams } from '@roost/routes'
import type { AccountsContext } from '../../../context'
import { home } from '../../../feeds/store'
import { requireUser } from '../../../users/current'
import { sendFeedPage } from './feed'

/**
 * GET /api/v1/timelines/home — a page of the signed-in user's home feed (docs/feeds.md), newest first; 206 while
 * the feed is being rebuilt. `local` is carried into the Link header and ignored, as in Mastodon.
 */
export async function homeTimeline(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, homeTimelineParams)
  await sendFeedPage(
    ctx,
    req,
    res,
    p,
    home(account.id),
    account.id,
    { event: 'home_feed.missing', accountId: account.id },
    ['local', 'limit'],
  )
}
