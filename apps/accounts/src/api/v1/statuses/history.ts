import type { Request, Response } from 'express'
import { notFound } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import type { StatusEditRow } from '../../../db/rows'
import { parseId } from '../../../domain/records'
import { findVisibleStatus } from '../../../domain/statuses'
import { renderStatusEdits } from '../../../entities/status_edit'
import { optionalUser, requireUser } from '../../../users/current'

/** GET /api/v1/statuses/:id/history — every version of the status, oldest first (StatusEdit entities). */
export async function statusHistory(ctx: AccountsContext, req: Request, res: Response) {
  const viewer = await optionalUser(ctx, req)
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), viewer?.account.id, notFound)
  const edits: StatusEditRow[] = await ctx.db('status_edits').where({ status_id: status.id }).orderBy('id')
  res.json(await renderStatusEdits(ctx.db, urlsOf(ctx.config), status, edits))
}

/** GET /api/v1/statuses/:id/source — the plain text behind a status, for an edit form (StatusSource). */
export async function statusSource(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), account.id, notFound)
  res.json({ id: status.id, text: status.text, spoiler_text: status.spoiler_text })
}
