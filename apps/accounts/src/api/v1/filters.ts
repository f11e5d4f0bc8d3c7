import type { Request, Response } from 'express'
import type { Knex } from '@roost/db'
import { filterV1Params, readParams } from '@roost/routes'
import { unprocessable } from '@roost/service'
import type { AccountsContext } from '../../context'
import type { FilterKeywordRow, FilterRow } from '../../db/rows'
import { createFilter, deleteKeyword, ownKeyword, updateFilter, updateKeyword } from '../../domain/filters'
import { renderFilterV1 } from '../../entities/filter'
import { requireUser } from '../../users/current'

/**
 * Filters v1, Mastodon's compatibility view over v2 (docs/discovery.md, "Filters"): a v1 filter is one keyword of
 * a v2 filter, and its id is the keyword's; `irreversible` is the `hide` action.
 */

/** The keyword with its filter, or 404. */
async function ownV1(db: Knex, accountId: string, id: unknown) {
  const keyword = await ownKeyword(db, accountId, id)
  const filter: FilterRow = await db('custom_filters').where({ id: keyword.custom_filter_id }).first()
  return { keyword, filter }
}

/** GET /api/v1/filters — every keyword of every filter of the user. */
export async function listFiltersV1(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const filters: FilterRow[] = await ctx.db('custom_filters').where({ account_id: account.id })
  const byId = new Map(filters.map((f) => [f.id, f]))
  const keywords: FilterKeywordRow[] = filters.length
    ? await ctx
        .db('custom_filter_keywords')
        .whereIn('custom_filter_id', [...byId.keys()])
        .orderBy('id')
    : []
  res.json(keywords.map((k) => renderFilterV1(k, byId.get(k.custom_filter_id)!)))
}

/** POST /api/v1/filters — `phrase`, `context[]`, `irreversible`, `whole_word`, `expires_in`: a v2 filter of one keyword. */
export async function createFilterV1(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, filterV1Params)
  const { keyword, filter } = await ctx.db.transaction(async (trx) => {
    const filter = await createFilter(trx, account.id, {
      title: p.phrase ?? '',
      context: p.context,
      filter_action: p.irreversible ? 'hide' : 'warn',
      expires_in: p.expires_in,
      keywords: [{ keyword: p.phrase ?? '', whole_word: p.whole_word ?? true }],
    })
    const keyword: FilterKeywordRow = await trx('custom_filter_keywords')
      .where({ custom_filter_id: filter.id })
      .first()
    return { keyword, filter }
  })
  res.json(renderFilterV1(keyword, filter))
}

/** GET /api/v1/filters/:id */
export async function showFilterV1(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const { keyword, filter } = await ownV1(ctx.db, account.id, req.params.id)
  res.json(renderFilterV1(keyword, filter))
}

/**
 * PUT /api/v1/filters/:id — the phrase and whole_word change the keyword; context, irreversible and expires_in
 * change its filter, which Mastodon refuses (422) when the filter has other keywords.
 */
export async function updateFilterV1(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, filterV1Params)
  const result = await ctx.db.transaction(async (trx) => {
    const { keyword, filter } = await ownV1(trx, account.id, req.params.id)
    const updatedKeyword = await updateKeyword(trx, account.id, keyword, {
      keyword: p.phrase,
      whole_word: p.whole_word,
    })
    const action = p.irreversible === undefined ? filter.filter_action : p.irreversible ? 'hide' : 'warn'
    const filterChanged =
      (p.context !== undefined && [...p.context].sort().join() !== [...filter.context].sort().join()) ||
      action !== filter.filter_action ||
      p.expires_in !== undefined
    let updatedFilter = filter
    if (filterChanged) {
      const [{ count }] = await trx('custom_filter_keywords')
        .where({ custom_filter_id: filter.id })
        .count('* as count')
      if (Number(count) > 1)
        throw unprocessable(
          'These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.',
        )
      updatedFilter = await updateFilter(trx, filter, {
        context: p.context,
        filter_action: action,
        expires_in: p.expires_in,
      })
    }
    return { keyword: updatedKeyword, filter: updatedFilter }
  })
  res.json(renderFilterV1(result.keyword, result.filter))
}

/** DELETE /api/v1/filters/:id — removes the keyword (its filter stays, as Mastodon's); `{}`. */
export async function deleteFilterV1(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  await ctx.db.transaction(async (trx) =>
    deleteKeyword(trx, account.id, await ownKeyword(trx, account.id, req.params.id)),
  )
  res.json({})
}
