import type { Request, Response } from 'express'
import { readParams, relationshipsParams } from '@roost/routes'
import type { AccountsContext } from '../../../context'
import { parseId } from '../../../domain/records'
import { forgetExpiredMutes } from '../../../domain/relationships'
import { renderRelationships } from '../../../entities/relationship'
import { requireUser } from '../../../users/current'

/**
 * GET /api/v1/accounts/relationships — `id[]` (or one `id`), de-duplicated; unknown ids are left out, and so
 * are suspended accounts unless `with_suspended` is true.
 */
export async function relationships(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, relationshipsParams)
  const requested = [...new Set(p.id ?? [])].map(parseId).filter((id): id is string => !!id)
  const query = ctx.db('accounts').whereIn('id', requested)
  if (!p.with_suspended) query.whereNull('suspended_at')
  const found = new Set<string>(requested.length ? await query.pluck('id') : [])
  await forgetExpiredMutes(ctx.db, account.id)
  res.json(
    await renderRelationships(
      ctx.db,
      account.id,
      requested.filter((id) => found.has(id)),
    ),
  )
}
