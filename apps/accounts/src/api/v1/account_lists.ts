import type { Request, Response } from 'express'
import type { Knex } from '@roost/db'
import { paginate } from '@roost/db'
import { pageParams, readParams } from '@roost/routes'
import { DEFAULT_ACCOUNTS_LIMIT, paramText, readPage, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../context'
import type { AccountRow } from '../../db/rows'
import { renderAccount, urlsOf } from '../../entities/account'

/**
 * The lists of accounts that page by the id of the relationship row (follows, follow requests, blocks, mutes):
 * `query` selects `accounts.*` plus `page_id`; Link next `max_id` when the page is full, prev `since_id` when
 * non-empty, `limit` (default 40) kept. `extra` adds fields to each entry (a mute's expiry).
 */
export async function sendAccountPage<T extends AccountRow & { page_id: string }>(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  query: Knex.QueryBuilder | undefined,
  pageColumn: string,
  extra: (row: T) => Record<string, unknown> = () => ({}),
) {
  const p = readParams(req, pageParams)
  const page = readPage(p, DEFAULT_ACCOUNTS_LIMIT)
  const rows = query ? await paginate<T>(query, pageColumn, page) : []
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.page_id,
    next: 'when-full',
    prev: 'since_id',
    kept: { limit: paramText(p.limit) },
  })
  const urls = urlsOf(ctx.config)
  res.json(rows.map((row) => ({ ...renderAccount(row, urls), ...extra(row) })))
}
