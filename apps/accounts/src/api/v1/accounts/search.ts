import type { Request, Response } from 'express'
import { readParams, searchAccountsParams } from '@roost/routes'
import { DEFAULT_ACCOUNTS_LIMIT, readPage } from '@roost/service'
import { localDomainOf } from '../../../config'
import type { AccountsContext } from '../../../context'
import type { AccountRow } from '../../../entities/account'
import { renderAccount, urlsOf } from '../../../entities/account'
import { escapeLike, visibleAccounts } from '../../../users/accounts'
import { requireUser } from '../../../users/current'

/** `offset` as Mastodon reads it (`to_i`): anything that is not a non-negative number is 0. */
export function readOffset(value: unknown): number {
  const n = Number.parseInt(String(value ?? ''), 10)
  return Number.isNaN(n) || n < 0 ? 0 : n
}

/**
 * Local accounts whose username or display name starts with `q` (a leading `@` and our own domain are
 * ignored). Exact username matches come first, then by username. Suspended accounts are not searchable.
 * With `followedBy`, only accounts that account follows.
 */
export async function searchAccounts(
  ctx: AccountsContext,
  q: string,
  limit: number,
  offset: number,
  followedBy?: string,
): Promise<AccountRow[]> {
  const host = localDomainOf(ctx.config)
  let term = q.trim().replace(/^@/, '')
  if (term.toLowerCase().endsWith(`@${host}`)) term = term.slice(0, -(host.length + 1))
  if (!term || limit === 0) return []
  const prefix = `${escapeLike(term)}%`
  const query = visibleAccounts(ctx.db).whereNull('accounts.suspended_at')
  if (followedBy)
    query.whereExists((e) =>
      e
        .select(ctx.db.raw('1'))
        .from('follows')
        .where('follows.account_id', followedBy)
        .whereRaw('follows.target_account_id = accounts.id'),
    )
  return query
    .where((w) =>
      w.whereRaw('accounts.username ilike ?', [prefix]).orWhereRaw('accounts.display_name ilike ?', [prefix]),
    )
    .orderByRaw('lower(accounts.username) = lower(?) desc', [term])
    .orderBy('accounts.username')
    .limit(limit)
    .offset(offset)
}

/**
 * GET /api/v1/accounts/search?q= (docs/mastodon-compatibility.md, "Accounts"). `following=true`: only accounts you follow. `resolve` is
 * accepted and ignored: every account is local, there is nothing to look up elsewhere.
 */
export async function searchAccountsRoute(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, searchAccountsParams)
  const { limit } = readPage(p, DEFAULT_ACCOUNTS_LIMIT)
  const rows = await searchAccounts(
    ctx,
    p.q,
    limit,
    readOffset(p.offset),
    p.following ? account.id : undefined,
  )
  res.json(rows.map((row) => renderAccount(row, urlsOf(ctx.config.PUBLIC_URL))))
}
