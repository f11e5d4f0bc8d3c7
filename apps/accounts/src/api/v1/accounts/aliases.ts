import type { Request, Response } from 'express'
import { accountAliasParams, accountMoveParams, readParams } from '@roost/routes'
import { Forbidden, Invalid, NotFound } from '@roost/errors'
import type { AccountsContext } from '../../../context'
import type { AccountRow } from '../../../db/rows'
import { urlsOf } from '../../../entities/account'
import { findLocalAccount } from '../../../queries/accounts'
import { resolveAcct, resolveActor } from '../../../federation/remote-accounts'
import { actorUriOf, acctOf } from '../../../federation/uris'
import { localFollowersOf, moveFollower, saveAliases } from '../../../domain/moves'
import * as outbox from '../../../outbox/outbox'
import { verifyPassword } from '../../../domain/password-hashes'
import { requireUser } from '../../../users/current'

/**
 * Aliases and moving away (docs/federation.md, "Moved accounts"): Roost additions to the API for what Mastodon does
 * in its settings pages (/settings/aliases, /settings/migration).
 */

/** The account `acct` names: `user` (local) or `user@domain` (fetched anew, as Mastodon's forms resolve it). */
async function accountOf(ctx: AccountsContext, acct: string, refresh: boolean): Promise<AccountRow> {
  const [username, domain] = acct.replace(/^@/, '').split('@')
  const local = !domain || domain.toLowerCase() === ctx.federation.localDomain.toLowerCase()
  try {
    const found = local
      ? await findLocalAccount(ctx.db, username ?? '')
      : await resolveAcct(ctx.federation, username ?? '', domain!)
    if (!found) throw new NotFound()
    return refresh && found.domain ? await resolveActor(ctx.federation, found.uri!, { refresh: true }) : found
  } catch {
    throw new NotFound('Record not found')
  }
}

const aliasesOf = (account: AccountRow) => (account.also_known_as ?? []).map((uri) => ({ uri }))

/** GET /api/v1/accounts/aliases — the ActivityPub ids the current account says it is also known as. */
export async function listAliases(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  res.json(aliasesOf(account))
}

/**
 * POST /api/v1/accounts/aliases — adds an alias (Mastodon's AccountAlias: the account must exist, and not be the
 * account itself); the actor document serves it as `alsoKnownAs` and an Update tells followers' servers.
 */
export async function addAlias(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const { acct } = readParams(req, accountAliasParams)
  const target = await accountOf(ctx, acct, false)
  if (target.id === account.id) throw new Invalid('Validation failed: Acct cannot be yourself')
  const uri = actorUriOf(urlsOf(ctx.config), target)
  const aliases = [...(account.also_known_as ?? []), uri]
  const row = await ctx.db.transaction((trx) => saveAliases(trx, account.id, aliases))
  res.json(aliasesOf(row))
}

/**
 * DELETE /api/v1/accounts/aliases — removes an alias, named by `acct` or by one of the listed `uri`s (what GET
 * answers, so the web app's /settings/aliases removes it as listed, even one whose account is gone).
 */
export async function removeAlias(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const { acct } = readParams(req, accountAliasParams)
  const listed = (account.also_known_as ?? []).includes(acct)
  const uri = listed ? acct : actorUriOf(urlsOf(ctx.config), await accountOf(ctx, acct, false))
  const aliases = (account.also_known_as ?? []).filter((u) => u !== uri)
  const row = await ctx.db.transaction((trx) => saveAliases(trx, account.id, aliases))
  res.json(aliasesOf(row))
}

/**
 * POST /api/v1/accounts/move — as Mastodon's /settings/migration form (its AccountMigration): the current password,
 * and a target that is not this account, not itself moved, and lists this account in its `alsoKnownAs`, fetched
 * anew. The account is marked as moved (it stays readable and refuses new posts), a Move goes to its followers'
 * servers (`account.moved`) and its local followers follow the target (domain/moves.ts). Answers the account.
 */
export async function moveAway(ctx: AccountsContext, req: Request, res: Response) {
  const { user, account } = await requireUser(ctx, req)
  const p = readParams(req, accountMoveParams)
  if (!(await verifyPassword(p.current_password, user.encrypted_password)))
    throw new Invalid('Validation failed: Current password is invalid')
  const target = await accountOf(ctx, p.acct, true)
  const urls = urlsOf(ctx.config)
  if (target.id === account.id) throw new Invalid('Validation failed: Acct cannot be yourself')
  if (target.moved_to_account_id) throw new Invalid('Validation failed: Acct is already moved')
  if (!(target.also_known_as ?? []).includes(actorUriOf(urls, account)))
    throw new Invalid(
      `Validation failed: Acct must reference this account (${acctOf(target)} has no alias for it)`,
    )
  if (account.moved_to_account_id) throw new Forbidden('Your login is currently disabled')
  await ctx.db.transaction(async (trx) => {
    await trx('accounts').where({ id: account.id }).update({ moved_to_account_id: target.id })
    await outbox.add(trx, { event: 'account.moved', accountId: account.id, targetAccountId: target.id })
  })
  for (const followerId of await localFollowersOf(ctx.db, account.id))
    await ctx.db.transaction((trx) => moveFollower(trx, urls, followerId, account, target))
  res.json({ moved_to: acctOf(target) })
}
