import type { Request, Response } from 'express'
import { recordNotFound } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { renderAccount, urlsOf } from '../../../entities/account'
import { findVisibleAccount } from '../../../domain/records'
import { withMovedTo } from '../../../queries/accounts'

/** GET /api/v1/accounts/:id — public; suspended accounts read as emptied, never 410 (docs/mastodon-compatibility.md, "Accounts"). */
export async function showAccount(ctx: AccountsContext, req: Request, res: Response) {
  const [row] = await withMovedTo(ctx.db, [await findVisibleAccount(ctx.db, req.params.id)])
  if (!row) throw recordNotFound()
  res.json(renderAccount(row, urlsOf(ctx.config)))
}
