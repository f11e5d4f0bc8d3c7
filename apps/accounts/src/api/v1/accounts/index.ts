import type { Request, Response } from 'express'
import { createAccountParams, listAccountsParams, readParams } from '@roost/routes'
import { DEFAULT_ACCOUNTS_LIMIT, forbidden, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { parseId } from '../../../domain/records'
import { renderAccount, urlsOf } from '../../../entities/account'
import type { ApplicationRow } from '../../../db/rows'
import { publishLoginState } from '../../../users/login-state'
import { clientAddress, ipSignUpSeverity } from '../../../ip_blocks/rules'
import { issueToken } from '../../../oauth/tokens'
import { visibleAccounts } from '../../../queries/accounts'
import { registerUser, validateSignUp } from '../../../users/sign-up'
import { usableInvite } from '../../../domain/invites'
import { Gone, NotFound } from '@roost/errors'
import { configWithSettings } from '../../../domain/server_settings'

/**
 * POST /api/v1/accounts — sign-up with an app token (docs/mastodon-compatibility.md, "Sign-up"). Answers a Token for the new user with
 * the app's registered scopes (as Mastodon, so the client can use it for everything it asked for when it
 * registered), even when the user must still be approved or confirm their e-mail: those calls then get 403.
 */
export async function createAccount(ctx: AccountsContext, req: Request, res: Response) {
  const token = req.token!
  if (token.userId) throw forbidden('This method requires an client credentials authentication')
  const params = readParams(req, createAccountParams)
  // An invite (docs/security.md, "Invites") opens closed registrations and skips approval, as Mastodon's
  // AppSignUpService with `invite_code`; an unusable one counts as none.
  const invite = params.invite_code
    ? await usableInvite(ctx.db, params.invite_code).catch((err) => {
        if (err instanceof NotFound || err instanceof Gone) return undefined
        throw err
      })
    : undefined
  // Closed registrations answer Rails' `forbidden` before any validation (the generic status text).
  // The registration settings as the admins set them now (docs/moderation.md, "Server settings").
  const config = await configWithSettings(ctx.db, ctx.config)
  if (config.REGISTRATIONS_MODE === 'none' && !invite) throw forbidden('Forbidden')
  // IP rules (Mastodon's `allowed_registration?` and User#sign_up_from_ip_requires_approval?). The gateway
  // already refuses blocked addresses; this is the service's own check, from the rules in its database.
  const severity = await ipSignUpSeverity(ctx, clientAddress(ctx, req))
  if (severity === 'sign_up_block' || severity === 'no_access') throw forbidden('Forbidden')

  const app = await ctx.db<ApplicationRow>('oauth_applications').where({ client_id: token.clientId }).first()
  if (!app) throw unprocessable('The application no longer exists')

  const signUp = await validateSignUp(ctx.db, config, params)
  let userId: string
  let accountId: string
  try {
    ;({ userId, accountId } = await registerUser(ctx.db, config, signUp, app.id, {
      requiresApproval: severity === 'sign_up_requires_approval',
      inviteId: invite?.id,
    }))
  } catch (err) {
    // Two sign-ups with the same name or address at once: the unique index decides, as Rails' "Duplicate record".
    if ((err as { code?: string }).code === '23505') throw unprocessable('Duplicate record')
    throw err
  }
  // Pending and unconfirmed users: the push service refuses their token as accounts does.
  await publishLoginState(ctx, accountId)
  res.json(
    await issueToken(ctx, {
      applicationId: app.id,
      clientId: app.client_id,
      userId,
      scopes: app.scopes.split(' '),
    }),
  )
}

/** GET /api/v1/accounts?id[]= — up to 40 accounts; unknown and hidden ones are left out (docs/mastodon-compatibility.md, "Accounts"). */
export async function listAccounts(ctx: AccountsContext, req: Request, res: Response) {
  const ids = [...new Set(readParams(req, listAccountsParams).id ?? [])]
  if (ids.length > DEFAULT_ACCOUNTS_LIMIT) throw unprocessable('Mastodon::ValidationError')
  const known = ids.filter((id) => parseId(id) !== undefined)
  const rows = known.length ? await visibleAccounts(ctx.db).whereIn('accounts.id', known) : []
  res.json(rows.map((row) => renderAccount(row, urlsOf(ctx.config))))
}
