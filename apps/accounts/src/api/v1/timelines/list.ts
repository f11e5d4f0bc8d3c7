import type { Request, Response } from 'express'
import { listTimelineParams, readParams } from '@roost/routes'
import type { AccountsContext } from '../../../context'
import { findOwnList } from '../../../domain/lists'
import { list } from '../../../feeds/store'
import { requireUser } from '../../../users/current'
import { sendFeedPage } from './feed'

/**
 * GET /api/v1/timelines/list/:id — a page of one of the signed-in user's lists (docs/feeds.md, "Lists"); another's
 * list is 404. Only `limit` is carried into the Link header, as in Mastodon. A list feed Redis lost is rebuilt
 * like a home feed, answering 206 meanwhile (Mastodon never rebuilds list feeds, so never answers 206 here).
 */
export async function listTimeline(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, listTimelineParams)
  const row = await findOwnList(ctx.db, account.id, req.params.id)
  await sendFeedPage(
    ctx,
    req,
    res,
    p,
    { feed: list(row.id), missing: { event: 'list_feed.missing', listId: row.id, accountId: account.id } },
    account.id,
    ['limit'],
  )
}
