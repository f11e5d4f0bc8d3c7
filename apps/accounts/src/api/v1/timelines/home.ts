import type { Request, Response } from 'express'
import { homeTimelineParams, readParams } from '@roost/routes'
import type { AccountsContext } from '../../../context'
import type { Feeds } from '../../../feeds/context'
import { pageFromPostgres, rebuildsInline, regenerate } from '../../../feeds/home'
import { home } from '../../../feeds/store'
import { requireUser } from '../../../users/current'
import type { FeedSource } from './feed'
import { sendFeedPage } from './feed'

/**
 * GET /api/v1/timelines/home — a page of the signed-in user's home feed (docs/feeds.md), newest first. A feed
 * Redis does not hold is rebuilt in this read when its owner follows few accounts; a longer rebuild runs in the
 * worker and reads answer 206 meanwhile, with the newest statuses read from Postgres. `local` is carried into the
 * Link header and ignored, as in Mastodon.
 */
export async function homeTimeline(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, homeTimelineParams)
  const f: Feeds = { db: ctx.db, store: ctx.feeds, activeDays: ctx.config.USER_ACTIVE_DAYS }
  const source: FeedSource = {
    feed: home(account.id),
    missing: { event: 'home_feed.missing', accountId: account.id },
    async rebuildInline() {
      if (!(await rebuildsInline(f, account.id))) return false
      await regenerate(f, account.id)
      return true
    },
    whileRebuilding: (page) => pageFromPostgres(f, account.id, page),
  }
  await sendFeedPage(ctx, req, res, p, source, account.id, ['local', 'limit'])
}
