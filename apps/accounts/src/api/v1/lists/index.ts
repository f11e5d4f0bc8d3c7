import type { Request, Response } from 'express'
import { listAccountIdsParams, listMembersParams, listParams, readParams } from '@roost/routes'
import { DEFAULT_ACCOUNTS_LIMIT, keptFromQuery, readPage, setPageLinks } from '@roost/service'
import { paginate } from '@roost/db'
import type { AccountsContext } from '../../../context'
import * as lists from '../../../domain/lists'
import type { AccountRow, ListRow } from '../../../db/rows'
import { renderAccount, urlsOf } from '../../../entities/account'
import { renderList } from '../../../entities/list'
import { requireUser } from '../../../users/current'
import { publishListOwner } from '../../../streaming/list-owners'

/** Mastodon's ListsController and Lists::AccountsController (docs/feeds.md, "Lists"): always the user's own lists. */

const changes = (req: Request): lists.ListChanges => {
  const p = readParams(req, listParams)
  return { title: p.title, repliesPolicy: p.replies_policy, exclusive: p.exclusive }
}

/** GET /api/v1/lists — every list of the user, unpaged. */
export async function listLists(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const rows: ListRow[] = await ctx.db('lists').where({ account_id: account.id }).orderBy('id')
  res.json(rows.map(renderList))
}

/** GET /api/v1/lists/:id */
export async function showList(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  res.json(renderList(await lists.findOwnList(ctx.db, account.id, req.params.id)))
}

/** POST /api/v1/lists — title, replies_policy (default `list`), exclusive (default false). */
export async function createList(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const c = changes(req)
  const list = await ctx.db.transaction((trx) => lists.createList(trx, account.id, c))
  await publishListOwner(ctx, list.id, account.id)
  res.json(renderList(list))
}

/** PUT and PATCH /api/v1/lists/:id — changes what is given. */
export async function updateList(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const c = changes(req)
  const row = await ctx.db.transaction(async (trx) =>
    lists.updateList(trx, await lists.findOwnList(trx, account.id, req.params.id), c),
  )
  res.json(renderList(row))
}

/** DELETE /api/v1/lists/:id → {} */
export async function deleteList(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const list = await ctx.db.transaction(async (trx) => {
    const own = await lists.findOwnList(trx, account.id, req.params.id)
    await lists.deleteList(trx, own)
    return own
  })
  await publishListOwner(ctx, list.id, undefined)
  res.json({})
}

/**
 * GET /api/v1/lists/:id/accounts — the members (suspended ones left out), paged by account id: Link next `max_id`
 * when the page is full, prev `since_id`. `limit=0` gives every member, with no Link header (Mastodon).
 */
export async function listMembers(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, listMembersParams)
  const row = await lists.findOwnList(ctx.db, account.id, req.params.id)
  const query = ctx
    .db('accounts')
    .join('list_accounts', 'list_accounts.account_id', 'accounts.id')
    .where('list_accounts.list_id', row.id)
    .whereNull('accounts.suspended_at')
    .select('accounts.*')
  const urls = urlsOf(ctx.config)
  if (p.limit === '0' || p.limit === 0) {
    const all: AccountRow[] = await query.orderBy('accounts.id', 'desc')
    res.json(all.map((a) => renderAccount(a, urls)))
    return
  }
  const page = readPage(p, DEFAULT_ACCOUNTS_LIMIT)
  const rows = await paginate<AccountRow>(query, 'accounts.id', { ...page, minId: undefined })
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-full',
    prev: 'since_id',
    kept: keptFromQuery(req.query, ['limit']),
  })
  res.json(rows.map((a) => renderAccount(a, urls)))
}

/** POST /api/v1/lists/:id/accounts — account_ids[]; every one followed (or requested) by the user → {} */
export async function addMembers(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const ids = readParams(req, listAccountIdsParams).account_ids ?? []
  await ctx.db.transaction(async (trx) =>
    lists.addToList(trx, await lists.findOwnList(trx, account.id, req.params.id), ids),
  )
  res.json({})
}

/** DELETE /api/v1/lists/:id/accounts — account_ids[] → {} */
export async function removeMembers(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const ids = readParams(req, listAccountIdsParams).account_ids ?? []
  await ctx.db.transaction(async (trx) =>
    lists.removeFromList(trx, await lists.findOwnList(trx, account.id, req.params.id), ids),
  )
  res.json({})
}
