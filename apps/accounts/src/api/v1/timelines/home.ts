import type { Request, Response } from 'express'
import { homeTimelineParams, readParams } from '@roost/routes'
import { DEFAULT_STATUSES_LIMIT, linkHeader, readPage } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import type { StatusRow } from '../../../entities/status'
import { renderStatuses } from '../../../entities/status'
import { home } from '../../../feeds/store'
import * as outbox from '../../../outbox/outbox'
import { requireUser } from '../../../users/current'

/**
 * GET /api/v1/timelines/home — a page of the signed-in user's home feed (docs/feeds.md), newest first. Ids that
 * no longer load (deleted since) are left out. While the feed is being rebuilt the answer is 206 with what it
 * holds so far; a feed that is not there at all (new user, Redis lost it, back after a long absence) is rebuilt
 * by the accounts worker, asked for here through the outbox.
 */
export async function homeTimeline(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, homeTimelineParams)
  const feed = home(account.id)
  const state = await ctx.feeds.state(feed)
  if (!state && (await ctx.feeds.claimRegeneration(feed))) {
    try {
      await outbox.add(ctx.db, { event: 'home_feed.missing', accountId: account.id })
    } catch (err) {
      await ctx.feeds.drop(feed) // unclaimed, so the next read asks again
      throw err
    }
  }

  const ids = await ctx.feeds.page(feed, readPage(p, DEFAULT_STATUSES_LIMIT))
  const loaded: StatusRow[] = ids.length ? await ctx.db('statuses').whereIn('id', ids) : []
  const rows = ids.flatMap((id) => loaded.find((s) => s.id === id) ?? [])

  const kept: Record<string, string | undefined> = {}
  for (const key of ['local', 'limit'])
    if (typeof req.query[key] === 'string') kept[key] = req.query[key] as string
  const link = linkHeader(ctx.config.PUBLIC_URL, req.path, kept, {
    next: rows.length ? { max_id: rows.at(-1)!.id } : undefined,
    prev: rows.length ? { min_id: rows[0]!.id } : undefined,
  })
  if (link) res.setHeader('Link', link)
  res.status(state === 'ready' ? 200 : 206)
  res.json(await renderStatuses(ctx.db, urlsOf(ctx.config.PUBLIC_URL), rows, account.id))
}
