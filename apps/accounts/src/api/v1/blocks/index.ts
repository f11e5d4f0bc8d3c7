import type { Request, Response } from 'express'
import type { AccountsContext } from '../../../context'
import { requireUser } from '../../../users/current'
import { sendAccountPage } from '../account_lists'

/** GET /api/v1/blocks — accounts you block, newest block first, paged by block id. */
export async function listBlocks(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const query = ctx
    .db('blocks')
    .join('accounts', 'accounts.id', 'blocks.target_account_id')
    .where('blocks.account_id', account.id)
    .whereNull('accounts.suspended_at')
    .select('accounts.*', 'blocks.id as page_id')
  await sendAccountPage(ctx, req, res, query, 'blocks.id')
}
