import type { Request, Response } from 'express'
import type { AccountsContext } from '../../../context'
import type { AccountRow } from '../../../db/rows'
import { forgetExpiredMutes } from '../../../domain/relationships'
import { activeMute } from '../../../queries/relationships'
import { requireUser } from '../../../users/current'
import { sendAccountPage } from '../account_lists'

/** GET /api/v1/mutes — MutedAccount entries (Account + mute_expires_at), newest mute first, paged by mute id. */
export async function listMutes(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  await forgetExpiredMutes(ctx.db, account.id)
  const query = ctx
    .db('mutes')
    .join('accounts', 'accounts.id', 'mutes.target_account_id')
    .where('mutes.account_id', account.id)
    .where(activeMute(ctx.db))
    .whereNull('accounts.suspended_at')
    .select('accounts.*', 'mutes.id as page_id', 'mutes.expires_at as mute_expires_at')
  await sendAccountPage<MutedRow>(ctx, req, res, query, 'mutes.id', muted)
}

type MutedRow = AccountRow & { page_id: string; mute_expires_at: Date | null }

const muted = (row: MutedRow) => ({
  mute_expires_at: row.mute_expires_at ? new Date(row.mute_expires_at).toISOString() : null,
})
