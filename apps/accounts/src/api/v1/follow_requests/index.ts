import type { Request, Response } from 'express'
import { recordNotFound } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { parseId } from '../../../domain/records'
import { acceptFollowRequest, deleteFollowRequest } from '../../../domain/relationships'
import { renderRelationship } from '../../../entities/relationship'
import { requireUser } from '../../../users/current'
import { sendAccountPage } from '../account_lists'

/** GET /api/v1/follow_requests — who asks to follow you, newest request first, paged by request id. */
export async function listFollowRequests(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const query = ctx
    .db('follow_requests')
    .join('accounts', 'accounts.id', 'follow_requests.account_id')
    .where('follow_requests.target_account_id', account.id)
    .whereNull('accounts.suspended_at')
    .select('accounts.*', 'follow_requests.id as page_id')
  await sendAccountPage(ctx, req, res, query, 'follow_requests.id')
}

/** POST /api/v1/follow_requests/:id/authorize and …/reject, where :id is the requester's account id. */
const decide = (accept: boolean) => async (ctx: AccountsContext, req: Request, res: Response) => {
  const { account } = await requireUser(ctx, req)
  const requesterId = parseId(req.params.id)
  await ctx.db.transaction(async (trx) => {
    const request = requesterId
      ? await trx('follow_requests')
          .where({ account_id: requesterId, target_account_id: account.id })
          .forUpdate()
          .first()
      : undefined
    if (!request) throw recordNotFound()
    if (accept) await acceptFollowRequest(trx, request)
    else await deleteFollowRequest(trx, request.account_id, request.target_account_id, 'rejected')
  })
  res.json(await renderRelationship(ctx.db, account.id, requesterId!))
}

export const authorizeFollowRequest = decide(true)
export const rejectFollowRequest = decide(false)
