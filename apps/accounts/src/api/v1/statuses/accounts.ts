import type { Request, Response } from 'express'
import type { Knex } from '@roost/db'
import { notFound } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { parseId } from '../../../domain/records'
import { hiddenAccounts, hideAccounts } from '../../../domain/relationships'
import { findVisibleStatus } from '../../../domain/statuses'
import { optionalUser } from '../../../users/current'
import { sendAccountPage } from '../account_lists'

/**
 * The accounts behind a status's boosts or favourites: not suspended ones and, for a signed-in viewer, not those
 * the viewer blocks or mutes or who block the viewer. `rows` joins `accounts` and names the paging row `page`.
 */
async function interactingAccounts(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  rows: (db: Knex, statusId: string) => Knex.QueryBuilder,
) {
  const viewerId = (await optionalUser(ctx, req))?.account.id
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), viewerId, notFound)
  const query = rows(ctx.db, status.id)
    .whereNull('accounts.suspended_at')
    .select('accounts.*', 'page.id as page_id')
  if (viewerId) hideAccounts(query, 'accounts.id', await hiddenAccounts(ctx.db, viewerId))
  await sendAccountPage(ctx, req, res, query, 'page.id')
}

/** GET /api/v1/statuses/:id/reblogged_by — pages by the boost's id; boosts visible to everyone only. */
export const rebloggedBy = (ctx: AccountsContext, req: Request, res: Response) =>
  interactingAccounts(ctx, req, res, (db, statusId) =>
    db('statuses as page')
      .join('accounts', 'accounts.id', 'page.account_id')
      .where('page.reblog_of_id', statusId)
      .whereIn('page.visibility', ['public', 'unlisted']),
  )

/** GET /api/v1/statuses/:id/favourited_by — pages by the favourite's id. */
export const favouritedBy = (ctx: AccountsContext, req: Request, res: Response) =>
  interactingAccounts(ctx, req, res, (db, statusId) =>
    db('favourites as page')
      .join('accounts', 'accounts.id', 'page.account_id')
      .where('page.status_id', statusId),
  )
