import type { Request, Response } from 'express'
import { filterKeywordParams, filterParams, filterStatusParams, readParams } from '@roost/routes'
import type { AccountsContext } from '../../context'
import type { FilterKeywordRow, FilterRow, FilterStatusRow } from '../../db/rows'
import {
  addFilterStatus,
  addKeyword,
  createFilter,
  deleteFilter as deleteFilterRow,
  deleteFilterStatus as deleteFilterStatusRow,
  deleteKeyword as deleteKeywordRow,
  ownFilter,
  ownFilterStatus,
  ownKeyword,
  updateFilter,
  updateKeyword,
} from '../../domain/filters'
import { renderFilters, renderFilterStatus, renderKeyword } from '../../entities/filter'
import { requireUser } from '../../users/current'

/** Filters v2 (docs/discovery.md, "Filters"); another user's filter, keyword or status is 404. */

const renderOne = async (ctx: AccountsContext, row: FilterRow) => (await renderFilters(ctx.db, [row]))[0]

/** GET /api/v2/filters — every filter of the user, expired ones too, oldest first. */
export async function listFilters(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const rows: FilterRow[] = await ctx.db('custom_filters').where({ account_id: account.id }).orderBy('id')
  res.json(await renderFilters(ctx.db, rows))
}

function filterInput(req: Request) {
  const p = readParams(req, filterParams)
  return {
    title: p.title,
    context: p.context,
    filter_action: p.filter_action,
    expires_in: p.expires_in,
    keywords: p.keywords_attributes,
  }
}

/** POST /api/v2/filters — `title`, `context[]`, `filter_action`, `expires_in`, `keywords_attributes[]`. */
export async function createFilterRoute(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const input = filterInput(req)
  const row = await ctx.db.transaction((trx) => createFilter(trx, account.id, input))
  res.json(await renderOne(ctx, row))
}

/** GET /api/v2/filters/:id */
export async function showFilter(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  res.json(await renderOne(ctx, await ownFilter(ctx.db, account.id, req.params.id)))
}

/** PUT /api/v2/filters/:id — what is given changes; keywords_attributes with `id` change or `_destroy` one. */
export async function updateFilterRoute(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const input = filterInput(req)
  const row = await ctx.db.transaction(async (trx) =>
    updateFilter(trx, await ownFilter(trx, account.id, req.params.id), input),
  )
  res.json(await renderOne(ctx, row))
}

/** DELETE /api/v2/filters/:id — `{}`. */
export async function deleteFilter(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  await ctx.db.transaction(async (trx) =>
    deleteFilterRow(trx, await ownFilter(trx, account.id, req.params.id)),
  )
  res.json({})
}

/** GET /api/v2/filters/:id/keywords */
export async function listKeywords(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const filter = await ownFilter(ctx.db, account.id, req.params.id)
  const rows: FilterKeywordRow[] = await ctx
    .db('custom_filter_keywords')
    .where({ custom_filter_id: filter.id })
    .orderBy('id')
  res.json(rows.map(renderKeyword))
}

/** POST /api/v2/filters/:id/keywords — `keyword`, `whole_word`. */
export async function createKeyword(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, filterKeywordParams)
  const row = await ctx.db.transaction(async (trx) =>
    addKeyword(trx, await ownFilter(trx, account.id, req.params.id), p.keyword, p.whole_word),
  )
  res.json(renderKeyword(row))
}

/** GET /api/v2/filters/keywords/:id */
export async function showKeyword(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  res.json(renderKeyword(await ownKeyword(ctx.db, account.id, req.params.id)))
}

/** PUT /api/v2/filters/keywords/:id */
export async function updateKeywordRoute(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, filterKeywordParams)
  const row = await ctx.db.transaction(async (trx) =>
    updateKeyword(trx, account.id, await ownKeyword(trx, account.id, req.params.id), p),
  )
  res.json(renderKeyword(row))
}

/** DELETE /api/v2/filters/keywords/:id — `{}`. */
export async function deleteKeyword(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  await ctx.db.transaction(async (trx) =>
    deleteKeywordRow(trx, account.id, await ownKeyword(trx, account.id, req.params.id)),
  )
  res.json({})
}

/** GET /api/v2/filters/:id/statuses */
export async function listFilterStatuses(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const filter = await ownFilter(ctx.db, account.id, req.params.id)
  const rows: FilterStatusRow[] = await ctx
    .db('custom_filter_statuses')
    .where({ custom_filter_id: filter.id })
    .orderBy('id')
  res.json(rows.map(renderFilterStatus))
}

/** POST /api/v2/filters/:id/statuses — `status_id`. */
export async function createFilterStatus(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, filterStatusParams)
  const row = await ctx.db.transaction(async (trx) =>
    addFilterStatus(trx, await ownFilter(trx, account.id, req.params.id), p.status_id),
  )
  res.json(renderFilterStatus(row))
}

/** GET /api/v2/filters/statuses/:id */
export async function showFilterStatus(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  res.json(renderFilterStatus(await ownFilterStatus(ctx.db, account.id, req.params.id)))
}

/** DELETE /api/v2/filters/statuses/:id — `{}`. */
export async function deleteFilterStatus(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  await ctx.db.transaction(async (trx) =>
    deleteFilterStatusRow(trx, account.id, await ownFilterStatus(trx, account.id, req.params.id)),
  )
  res.json({})
}
