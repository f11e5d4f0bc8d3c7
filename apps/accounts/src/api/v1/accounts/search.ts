import type { Request, Response } from 'express'
import { readParams, searchAccountsParams } from '@roost/routes'
import { DEFAULT_ACCOUNTS_LIMIT, readPage } from '@roost/service'
import { localDomainOf } from '../../../config'
import type { AccountsContext } from '../../../context'
import type { AccountRow } from '../../../db/rows'
import { renderAccount, urlsOf } from '../../../entities/account'
import { syncFeatured } from '../../../federation/inbox/featured'
import { findByAcct, parseAcct, resolveAcct, resolveActor } from '../../../federation/remote-accounts'
import { visibleAccounts } from '../../../queries/accounts'
import { requireUser } from '../../../users/current'

/** `offset` as Mastodon reads it (`to_i`): anything that is not a non-negative number is 0. */
export function readOffset(value: unknown): number {
  const n = Number.parseInt(String(value ?? ''), 10)
  return Number.isNaN(n) || n < 0 ? 0 : n
}

/**
 * Accounts whose username or display name starts with `q` (a leading `@` and our own domain are ignored), local
 * and known remote ones. Exact username matches come first, then by username. Suspended accounts are not
 * searchable. With `followedBy`, only accounts that account follows. A `user@domain` of another server is that
 * account, looked up by WebFinger when `resolve` (a signed-in user's search, as Mastodon's), as is an actor URL.
 */
export async function searchAccounts(
  ctx: AccountsContext,
  q: string,
  limit: number,
  offset: number,
  followedBy?: string,
  resolve = false,
): Promise<AccountRow[]> {
  const host = localDomainOf(ctx.config)
  let term = q.trim().replace(/^@/, '')
  if (term.toLowerCase().endsWith(`@${host}`)) term = term.slice(0, -(host.length + 1))
  if (!term || limit === 0) return []
  const remote = term.includes('@') || /^https?:\/\//.test(term)
  if (remote) {
    if (offset > 0) return []
    const row = await findRemote(ctx, term, resolve)
    if (!row || row.suspended_at) return []
    if (
      followedBy &&
      !(await ctx.db('follows').where({ account_id: followedBy, target_account_id: row.id }).first('id'))
    )
      return []
    return [row]
  }
  const query = visibleAccounts(ctx.db).whereNull('accounts.suspended_at')
  if (followedBy)
    query.whereExists((e) =>
      e
        .select(ctx.db.raw('1'))
        .from('follows')
        .where('follows.account_id', followedBy)
        .whereRaw('follows.target_account_id = accounts.id'),
    )
  // The names that begin with the term are one range of each name's index (accounts_username_prefix,
  // accounts_display_name_prefix: lower case, byte order), however many accounts are known: from the term itself
  // up to the term followed by the last character there is. Postgres lower-cases both, as the indexes do.
  const startsWithTerm = (column: string) =>
    `lower(${column}) COLLATE "C" >= lower(?) COLLATE "C" AND lower(${column}) COLLATE "C" < (lower(?) || chr(1114111)) COLLATE "C"`
  return query
    .where((w) =>
      w
        .whereRaw(startsWithTerm('accounts.username'), [term, term])
        .orWhereRaw(startsWithTerm('accounts.display_name'), [term, term]),
    )
    .orderByRaw('lower(accounts.username) = lower(?) desc', [term])
    .orderBy('accounts.username')
    .limit(limit)
    .offset(offset)
}

/**
 * The remote account a `user@domain` or an actor URL names: known, or (with `resolve`) fetched. A server that
 * cannot be reached, or answers nonsense, finds nothing (Mastodon answers an empty search too).
 */
async function findRemote(
  ctx: AccountsContext,
  term: string,
  resolve: boolean,
): Promise<AccountRow | undefined> {
  const fed = ctx.federation
  if (/^https?:\/\//.test(term)) {
    if (!resolve || !fed.enabled) return ctx.db('accounts').where({ uri: term }).first()
    return resolveActor(fed, term).catch((err) => {
      ctx.logger.info({ err, uri: term }, 'could not resolve an actor')
      return undefined
    })
  }
  const acct = parseAcct(term)
  if (!acct) return undefined
  if (!resolve || !fed.enabled) return findByAcct(ctx.db, acct.username, acct.domain)
  const known = await findByAcct(ctx.db, acct.username, acct.domain)
  const found = await resolveAcct(fed, acct.username, acct.domain).catch((err) => {
    ctx.logger.info({ err, acct: term }, 'could not resolve an account')
    return undefined
  })
  // An account resolved for the first time comes with its pinned posts and featured hashtags (Mastodon fetches
  // them when it first stores an account; docs/federation.md, "Pinned posts and featured hashtags").
  if (found && !known) await syncFeatured(fed, found)
  return found
}

/**
 * GET /api/v1/accounts/search?q= (docs/mastodon-compatibility.md, "Accounts"). `following=true`: only accounts
 * you follow; `resolve=true`: a `user@domain` or actor URL of another server is looked up there.
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
    !!p.resolve,
  )
  res.json(rows.map((row) => renderAccount(row, urlsOf(ctx.config))))
}
