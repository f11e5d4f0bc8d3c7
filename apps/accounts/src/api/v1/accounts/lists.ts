import type { Request, Response } from 'express'
import type { AccountsContext } from '../../../context'
import { findAccount } from '../../../domain/records'
import type { ListRow } from '../../../db/rows'
import { renderList } from '../../../entities/list'
import { requireUser } from '../../../users/current'

/** GET /api/v1/accounts/:id/lists — the user's lists that hold the account (none for a suspended account). */
export async function accountLists(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const target = await findAccount(ctx.db, req.params.id)
  const rows: ListRow[] = target.suspended_at
    ? []
    : await ctx
        .db('lists')
        .join('list_accounts', 'list_accounts.list_id', 'lists.id')
        .where({ 'lists.account_id': account.id, 'list_accounts.account_id': target.id })
        .orderBy('lists.id')
        .select('lists.*')
  res.json(rows.map(renderList))
}
