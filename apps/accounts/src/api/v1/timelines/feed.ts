import type { Request, Response } from 'express'
import type { OutboxEvent } from '@roost/events'
import type { Page, Params } from '@roost/service'
import { DEFAULT_STATUSES_LIMIT, keptFromQuery, readPage, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { renderStatuses } from '../../../entities/status'
import type { Feed } from '../../../feeds/store'
import * as outbox from '../../../outbox/outbox'
import { statusesInOrder } from '../../../feeds/timelines'
import { withoutHidden } from '../../../domain/filters'

/** A feed a timeline reads, and what to do when Redis does not hold it (docs/feeds.md, "Regeneration"). */
export interface FeedSource {
  feed: Feed
  /** The outbox event that has the accounts worker rebuild the feed. */
  missing: OutboxEvent
  /** Rebuilds the feed here and answers true when it is small enough to (home); otherwise false. */
  rebuildInline?: () => Promise<boolean>
  /** The page read from Postgres while the worker rebuilds the feed (home); without it, what the feed holds. */
  whileRebuilding?: (page: Page) => Promise<string[]>
}

/**
 * A page of a feed kept in Redis (home or list; docs/feeds.md), newest first, as `viewerId` sees it. Ids that no
 * longer load (deleted since) are left out. A feed that is not there (new, lost with Redis, dropped while its
 * owner was away) is rebuilt in this request when that is quick, else by the accounts worker, asked for with
 * `missing` through the outbox; until it is ready the answer is 206. Link next `max_id`, prev `min_id`, keeping the
 * `kept` parameters; none for an empty page.
 */
export async function sendFeedPage(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  p: Params,
  source: FeedSource,
  viewerId: string,
  kept: string[],
) {
  const { feed } = source
  const ready = (await ctx.feeds.state(feed)) === 'ready' || (await rebuild(ctx, source))
  const page = readPage(p, DEFAULT_STATUSES_LIMIT)
  const ids =
    ready || !source.whileRebuilding ? await ctx.feeds.page(feed, page) : await source.whileRebuilding(page)
  const rows = await statusesInOrder(ctx.db, ids)

  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-not-empty',
    prev: 'min_id',
    kept: keptFromQuery(req.query, kept),
  })
  res.status(ready ? 200 : 206)
  // Statuses hidden by a filter leave the page; the Link header above is made from the rows read.
  res.json(withoutHidden(await renderStatuses(ctx.db, urlsOf(ctx.config), rows, viewerId), 'home'))
}

/**
 * A feed that is not ready: unless another read or job is rebuilding it already, this read claims it and rebuilds
 * it here (true: ready now) or asks the worker to (false).
 */
async function rebuild(ctx: AccountsContext, source: FeedSource): Promise<boolean> {
  const done = await ctx.feeds.withClaim(source.feed, async () => {
    if (await source.rebuildInline?.()) return true
    await outbox.add(ctx.db, source.missing)
    return false
  })
  return done ?? false
}
