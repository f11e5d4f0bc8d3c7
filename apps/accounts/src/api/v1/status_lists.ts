import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { pageParams, readParams } from '@roost/routes'
import { DEFAULT_STATUSES_LIMIT, linkHeader, readPage } from '@roost/service'
import type { AccountsContext } from '../../context'
import { urlsOf } from '../../entities/account'
import type { StatusRow } from '../../entities/status'
import { renderStatuses } from '../../entities/status'
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
  const query = ctx
    .db(table)
    .join('statuses', 'statuses.id', `${table}.status_id`)
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .where(`${table}.account_id`, account.id)
    .whereNull('accounts.suspended_at')
    .select('statuses.*', `${table}.id as page_id`)
  const p = readParams(req, pageParams)
  const page = readPage(p, DEFAULT_STATUSES_LIMIT)
  const rows = await paginate<StatusRow & { page_id: string }>(query, `${table}.id`, page)
  const limit = p.limit === undefined ? undefined : String(p.limit)
  const link = linkHeader(
    ctx.config.PUBLIC_URL,
    req.path,
    { limit },
    {
      next: rows.length && rows.length === page.limit ? { max_id: rows.at(-1)!.page_id } : undefined,
      prev: rows.length ? { min_id: rows[0]!.page_id } : undefined,
    },
  )
  if (link) res.setHeader('Link', link)
  res.json(await renderStatuses(ctx.db, urlsOf(ctx.config.PUBLIC_URL), rows, account.id))
}
