import type { Request, Response } from 'express'
import { pageParams, readParams } from '@roost/routes'
import { DEFAULT_STATUSES_LIMIT, paramText, readPage, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../context'
import { urlsOf } from '../../entities/account'
import { renderStatuses } from '../../entities/status'
import { markedStatuses } from '../../feeds/timelines'
import { requireUser } from '../../users/current'

/**
 * The signed-in user's bookmarks or favourites (Mastodon's BookmarksController and FavouritesController): newest
 * first, paged by the bookmark's or favourite's id, not the status's; statuses of suspended authors left out.
 * Link next `max_id` when the page is full, prev `min_id` when non-empty, `limit` (default 20) kept.
 */
export async function sendMarkedStatuses(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  table: 'bookmarks' | 'favourites',
) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, pageParams)
  const page = readPage(p, DEFAULT_STATUSES_LIMIT)
  const rows = await markedStatuses(ctx.db, table, account.id, page)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.page_id,
    next: 'when-full',
    prev: 'min_id',
    kept: { limit: paramText(p.limit) },
  })
  res.json(await renderStatuses(ctx.db, urlsOf(ctx.config), rows, account.id))
}
