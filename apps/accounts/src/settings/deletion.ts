import type { Request, Response } from 'express'
import { deleteAccountParams, readParams } from '@roost/routes'
import { HttpError } from '@roost/service'
import type { AccountsContext } from '../context'
import { requestAccountDeletion } from '../domain/deletion'
import { checkCode } from '../domain/two_factor'
import { otpKey } from '../two_factor/otp-secret'
import { guardCredentials } from '../oauth/throttle'
import { publishLoginState } from '../users/login-state'
import { verifyPassword } from '../domain/password-hashes'
import { problemPage } from '../auth/pages'
import { formCsrf, settingsAccount, settingsCsrf } from './common'
import { deletedPage, deletePage } from './data-pages'

/**
 * Leaving (docs/security.md, "Leaving"): Mastodon's /settings/delete. Mastodon has no client API for it, nor does
 * Roost (docs/mastodon-compatibility.md).
 */

/** GET /settings/delete */
export async function showDelete(ctx: AccountsContext, req: Request, res: Response) {
  const me = await settingsAccount(ctx, req, res)
  if (me)
    res.type('html').send(
      deletePage({
        csrf: settingsCsrf(ctx, req, res),
        username: me.account.username,
        twoFactor: !!me.user.otp_enabled_at,
      }),
    )
}

/**
 * POST /settings/delete — with the password, and a second factor when two-factor sign-in is on (a TOTP or recovery
 * code, domain/two_factor.ts, which uses it up): the account is suspended at once (its tokens revoked, the session
 * ended) and the worker removes the rest. A wrong password counts as a failed sign-in (oauth/throttle.ts) and
 * changes nothing.
 */
export async function postDelete(ctx: AccountsContext, req: Request, res: Response) {
  const me = await settingsAccount(ctx, req, res)
  if (!me) return
  const p = readParams(req, deleteAccountParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/delete')) return
  let throttle: Awaited<ReturnType<typeof guardCredentials>>
  try {
    throttle = await guardCredentials(ctx, req, res, [`login:${me.user.email}`])
  } catch (err) {
    if (!(err instanceof HttpError) || err.status !== 429) throw err
    return res
      .status(429)
      .type('html')
      .send(problemPage('Too many attempts', 'Too many attempts. Try again later.'))
  }
  const refuse = async (error: string) => {
    await throttle.fail()
    res
      .status(422)
      .type('html')
      .send(
        deletePage({
          csrf: settingsCsrf(ctx, req, res),
          username: me.account.username,
          twoFactor: !!me.user.otp_enabled_at,
          error,
        }),
      )
  }
  const password = typeof p.password === 'string' ? p.password : ''
  if (!password || !(await verifyPassword(password, me.user.encrypted_password)))
    return refuse('The password is not right.')
  if (
    me.user.otp_enabled_at &&
    !(await ctx.db.transaction((trx) => checkCode(trx, otpKey(ctx.config.OTP_SECRET), me.user.id, p.code)))
  )
    return refuse('The two-factor code is not right.')
  await ctx.db.transaction((trx) => requestAccountDeletion(trx, ctx.revocations, me.account.id))
  await publishLoginState(ctx, me.account.id)
  res.clearCookie('roost_session', { path: '/' })
  res.type('html').send(deletedPage(me.account.username))
}
