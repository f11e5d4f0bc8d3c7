import type { Request, Response } from 'express'
import { accountNoteParams, familiarFollowersParams, readParams } from '@roost/routes'
import type { AccountsContext } from '../../../context'
import { endorse, setAccountNote, unendorse } from '../../../domain/account_extras'
import { findAccount, parseId } from '../../../domain/records'
import { blocks, hiddenAccounts, hideAccounts } from '../../../domain/relationships'
import type { AccountRow } from '../../../db/rows'
import { renderAccount, urlsOf } from '../../../entities/account'
import { renderRelationship } from '../../../entities/relationship'
import { optionalUser, requireUser } from '../../../users/current'
import { sendAccountPage } from '../account_lists'

/** POST /api/v1/accounts/:id/note — `comment` (≤ 2000 characters; blank removes it); the Relationship. */
export async function accountNote(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const target = await findAccount(ctx.db, req.params.id)
  const { comment } = readParams(req, accountNoteParams)
  await setAccountNote(ctx.db, account.id, target.id, comment ?? '')
  res.json(await renderRelationship(ctx.db, account.id, target.id))
}

const endorsement = (change: typeof endorse) =>
  async function (ctx: AccountsContext, req: Request, res: Response) {
    const { account } = await requireUser(ctx, req)
    const target = await findAccount(ctx.db, req.params.id)
    await ctx.db.transaction((trx) => change(trx, account.id, target.id))
    res.json(await renderRelationship(ctx.db, account.id, target.id))
  }

/** POST /api/v1/accounts/:id/pin (and 4.4's /endorse) — only a followed account; the Relationship. */
export const pinAccount = endorsement(endorse)
/** POST /api/v1/accounts/:id/unpin (and /unendorse) */
export const unpinAccount = endorsement(unendorse)

const endorsedBy = (ctx: AccountsContext, accountId: string) =>
  ctx
    .db('account_pins')
    .join('accounts', 'accounts.id', 'account_pins.target_account_id')
    .where('account_pins.account_id', accountId)
    .whereNull('accounts.suspended_at')
    .select('accounts.*', 'accounts.id as page_id')

/** GET /api/v1/endorsements — the viewer's endorsed accounts, paged by account id as Mastodon's. */
export async function listEndorsements(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  await sendAccountPage(ctx, req, res, endorsedBy(ctx, account.id), 'accounts.id')
}

/**
 * GET /api/v1/accounts/:id/endorsements — an account's endorsements as anyone sees them: empty for a suspended
 * account, hidden collections (but to the owner) and an account that blocks the viewer; blocked and muted
 * accounts are left out for the viewer.
 */
export async function accountEndorsements(ctx: AccountsContext, req: Request, res: Response) {
  const viewer = await optionalUser(ctx, req)
  const account = await findAccount(ctx.db, req.params.id)
  const viewerId = viewer?.account.id
  const owner = viewerId === account.id
  const hidden =
    !!account.suspended_at ||
    (account.hide_collections && !owner) ||
    (!!viewerId && (await blocks(ctx.db, account.id, viewerId)))
  const query = endorsedBy(ctx, account.id)
  if (viewerId && !owner && !hidden)
    hideAccounts(query, 'accounts.id', await hiddenAccounts(ctx.db, viewerId))
  await sendAccountPage(ctx, req, res, hidden ? undefined : query, 'accounts.id')
}

/**
 * GET /api/v1/accounts/familiar_followers?id[]= — for each account, the accounts the viewer follows that follow
 * it (not those hiding their collections, nor suspended ones): `[{id, accounts}]`.
 */
export async function familiarFollowers(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const { id } = readParams(req, familiarFollowersParams)
  const ids = [...new Set((id ?? []).map(parseId).filter((x): x is string => !!x))]
  const rows: (AccountRow & { target: string })[] = ids.length
    ? await ctx
        .db('follows')
        .join('accounts', 'accounts.id', 'follows.account_id')
        .whereIn('follows.target_account_id', ids)
        .whereIn(
          'follows.account_id',
          ctx.db('follows').where({ account_id: account.id }).select('target_account_id'),
        )
        .where('accounts.hide_collections', false)
        .whereNull('accounts.suspended_at')
        .orderBy('follows.id', 'desc')
        .select('accounts.*', 'follows.target_account_id as target')
    : []
  const urls = urlsOf(ctx.config)
  res.json(
    ids.map((target) => ({
      id: target,
      accounts: rows.filter((r) => String(r.target) === target).map((r) => renderAccount(r, urls)),
    })),
  )
}
