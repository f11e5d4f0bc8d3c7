import type { Request, Response } from 'express'
import type { OutboxEvent } from '@roost/events'
import type { Params } from '@roost/service'
import { DEFAULT_STATUSES_LIMIT, linkHeader, readPage } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import type { StatusRow } from '../../../entities/status'
import { renderStatuses } from '../../../entities/status'
import type { Feed } from '../../../feeds/store'
import * as outbox from '../../../outbox/outbox'
import { withoutHidden } from '../../../domain/filters'

/**
 * A page of a feed kept in Redis (home or list; docs/feeds.md), newest first, as `viewerId` sees it. Ids that no
 * longer load (deleted since) are left out. A feed that is not there (new, lost with Redis, dropped while its
 * owner was away) is rebuilt by the accounts worker, asked for here with `missing` through the outbox; until it
 * is ready the answer is 206 with what the feed holds so far. Link next `max_id`, prev `min_id`, keeping the
 * `kept` parameters; none for an empty page.
 */
export async function sendFeedPage(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  p: Params,
  feed: Feed,
  viewerId: string,
  missing: OutboxEvent,
  kept: string[],
) {
  const state = await ctx.feeds.state(feed)
  if (!state && (await ctx.feeds.claimRegeneration(feed))) {
    try {
      await outbox.add(ctx.db, missing)
    } catch (err) {
      await ctx.feeds.drop(feed) // unclaimed, so the next read asks again
      throw err
    }
  }

  const ids = await ctx.feeds.page(feed, readPage(p, DEFAULT_STATUSES_LIMIT))
  const loaded: StatusRow[] = ids.length ? await ctx.db('statuses').whereIn('id', ids) : []
  const rows = ids.flatMap((id) => loaded.find((s) => s.id === id) ?? [])

  const query: Record<string, string | undefined> = {}
  for (const key of kept) if (typeof req.query[key] === 'string') query[key] = req.query[key] as string
  const link = linkHeader(ctx.config.PUBLIC_URL, req.path, query, {
    next: rows.length ? { max_id: rows.at(-1)!.id } : undefined,
    prev: rows.length ? { min_id: rows[0]!.id } : undefined,
  })
  if (link) res.setHeader('Link', link)
  res.status(state === 'ready' ? 200 : 206)
  // Statuses hidden by a filter leave the page; the Link header above is made from the rows read.
  res.json(withoutHidden(await renderStatuses(ctx.db, urlsOf(ctx.config.PUBLIC_URL), rows, viewerId), 'home'))
}
