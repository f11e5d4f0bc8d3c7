import type { Request, Response } from 'express'
import { readParams, searchParams } from '@roost/routes'
import { HttpError, readPage } from '@roost/service'
import type { AccountsContext } from '../../context'
import { renderAccount, urlsOf } from '../../entities/account'
import { readOffset, searchAccounts } from '../v1/accounts/search'

const SEARCH_LIMIT = 20
const TYPES = new Set(['accounts', 'statuses', 'hashtags'])

/** Runs a search: accounts by prefix; statuses and hashtags are not searchable in Roost yet (always empty). */
async function search(ctx: AccountsContext, req: Request) {
  const p = readParams(req, searchParams)
  const offset = readOffset(p.offset)
  // Mastodon: paging search results needs a signed-in user (401, its own text).
  if (offset > 0 && !req.token?.userId)
    throw new HttpError(401, 'Search queries pagination is not supported without authentication')
  const type = typeof p.type === 'string' && TYPES.has(p.type) ? p.type : undefined
  const { limit } = readPage(p, SEARCH_LIMIT)
  const accounts = !type || type === 'accounts' ? await searchAccounts(ctx, p.q, limit, offset) : []
  return { accounts: accounts.map((row) => renderAccount(row, urlsOf(ctx.config.PUBLIC_URL))) }
}

/**
 * GET /api/v2/search?q=&type= and the old GET /api/v1/search (same shape here: with no hashtags to show, v1's
 * string hashtags and v2's Tag entities are both an empty list).
 */
export async function searchRoute(ctx: AccountsContext, req: Request, res: Response) {
  const { accounts } = await search(ctx, req)
  res.json({ accounts, statuses: [], hashtags: [] })
}
