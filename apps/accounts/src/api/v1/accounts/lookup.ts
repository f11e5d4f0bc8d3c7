import type { Request, Response } from 'express'
import { lookupAccountParams, readParams } from '@roost/routes'
import { recordNotFound } from '@roost/service'
import { localDomainOf } from '../../../config'
import type { AccountsContext } from '../../../context'
import { renderAccount, urlsOf } from '../../../entities/account'
import { visibleAccounts } from '../../../users/accounts'
import { USERNAME } from '../../../users/sign-up'

/** The username of `acct` when it names a local account (`name`, `@name`, `name@our.domain`), else undefined. */
export function localUsername(acct: string, localDomain: string): string | undefined {
  const [username, domain, ...rest] = acct.replace(/^@/, '').split('@')
  if (rest.length || !username || !USERNAME.test(username)) return undefined
  if (domain !== undefined && domain.toLowerCase() !== localDomain) return undefined
  return username
}

/** GET /api/v1/accounts/lookup?acct= — local accounts only; no WebFinger (docs/mastodon-compatibility.md, "Accounts"). */
export async function lookupAccount(ctx: AccountsContext, req: Request, res: Response) {
  const { acct } = readParams(req, lookupAccountParams)
  const username = typeof acct === 'string' ? localUsername(acct, localDomainOf(ctx.config)) : undefined
  const row = username
    ? await visibleAccounts(ctx.db).whereRaw('lower(accounts.username) = lower(?)', [username]).first()
    : undefined
  if (!row) throw recordNotFound()
  res.json(renderAccount(row, urlsOf(ctx.config.PUBLIC_URL)))
}
