import type { Request, Response } from 'express'
import type { AccountsContext } from '../../../context'
import { findAccount } from '../../../domain/records'
import { blocks, hiddenAccounts, hideAccounts } from '../../../domain/relationships'
import { optionalUser } from '../../../users/current'
import { sendAccountPage } from '../account_lists'

/**
 * GET /api/v1/accounts/:id/followers and /following, newest follow first, paged by follow id. Empty for a
 * suspended account, hidden collections (unless you are the owner) and an account that blocks you; others
 * do not see accounts they block or mute, or that block them.
 */
const listing = (direction: 'followers' | 'following') =>
  async function (ctx: AccountsContext, req: Request, res: Response) {
    const viewer = await optionalUser(ctx, req)
    const account = await findAccount(ctx.db, req.params.id)
    const viewerId = viewer?.account.id
    const owner = viewerId === account.id
    const hidden =
      !!account.suspended_at ||
      (account.hide_collections && !owner) ||
      (!!viewerId && (await blocks(ctx.db, account.id, viewerId)))
    const [self, other] =
      direction === 'followers' ? ['target_account_id', 'account_id'] : ['account_id', 'target_account_id']
    const db = ctx.db
    const query = db('follows')
      .join('accounts', 'accounts.id', `follows.${other}`)
      .where(`follows.${self}`, account.id)
      .whereNull('accounts.suspended_at')
      .select('accounts.*', 'follows.id as page_id')
    if (viewerId && !owner && !hidden) hideAccounts(query, 'accounts.id', await hiddenAccounts(db, viewerId))
    await sendAccountPage(ctx, req, res, hidden ? undefined : query, 'follows.id')
  }

export const followers = listing('followers')
export const following = listing('following')
