import type { Request, Response } from 'express'
import { lookupAccountParams, readParams } from '@roost/routes'
import { recordNotFound } from '@roost/service'
import { localDomainOf } from '../../../config'
import type { AccountsContext } from '../../../context'
import { renderAccount, urlsOf } from '../../../entities/account'
import { findByAcct, parseAcct } from '../../../federation/remote-accounts'
import { visibleAccounts, withMovedTo } from '../../../queries/accounts'
import { USERNAME } from '../../../users/sign-up'

/** The username of `acct` when it names a local account (`name`, `@name`, `name@our.domain`), else undefined. */
export function localUsername(acct: string, localDomain: string): string | undefined {
  const [username, domain, ...rest] = acct.replace(/^@/, '').split('@')
  if (rest.length || !username || !USERNAME.test(username)) return undefined
  if (domain !== undefined && domain.toLowerCase() !== localDomain) return undefined
  return username
}

/**
 * GET /api/v1/accounts/lookup?acct= — a local account, or a remote one already known (`user@domain`). As
 * Mastodon's (ResolveAccountService with `skip_webfinger`), no WebFinger is made: unknown remote accounts are
 * found with search and `resolve=true` (docs/federation.md, "Remote accounts").
 */
export async function lookupAccount(ctx: AccountsContext, req: Request, res: Response) {
  const { acct } = readParams(req, lookupAccountParams)
  const username = typeof acct === 'string' ? localUsername(acct, localDomainOf(ctx.config)) : undefined
  const remote = !username && typeof acct === 'string' ? parseAcct(acct) : undefined
  const row = username
    ? await visibleAccounts(ctx.db)
        .whereNull('accounts.domain')
        .whereRaw('lower(accounts.username) = lower(?)', [username])
        .first()
    : remote
      ? await findByAcct(ctx.db, remote.username, remote.domain)
      : undefined
  if (!row) throw recordNotFound()
  const [shown] = await withMovedTo(ctx.db, [row])
  res.json(renderAccount(shown!, urlsOf(ctx.config)))
}
