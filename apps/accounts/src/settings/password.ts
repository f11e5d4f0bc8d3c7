import type { Request, Response } from 'express'
import { readParams, settingsPasswordParams } from '@roost/routes'
import type { AccountsContext } from '../context'
import { pageThrottled } from '../auth/passwords'
import { changePassword } from '../domain/passwords'
import { hashPassword, newPasswordProblem, verifyPassword } from '../domain/password-hashes'
import { guardCredentials, guardRequests } from '../oauth/throttle'
import { startSession } from '../oauth/session'
import { formCsrf, settingsCsrf, settingsHeaders, settingsUser } from './common'
import { passwordPage } from './pages'

/**
 * /settings/password (docs/security.md, "Changing the password"): the current password, and the new one twice. The
 * change ends what the old password opened (every access token, unused codes and reset links, the sign-in sessions
 * begun before it: domain/passwords.ts) and the user is told by mail; the session of this page is begun again, so
 * its owner stays signed in here. A wrong current password is 422 and counts as a failed sign-in of the account;
 * changes are throttled per user as through the API (RATE_LIMIT_PASSWORD_CHANGES).
 */
export async function showPassword(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  settingsHeaders(res)
  res.type('html').send(passwordPage({ csrf: settingsCsrf(ctx, req, res) }))
}

/** POST /settings/password — `current_password`, `password`, `password_confirmation`. */
export async function changePasswordOnPage(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  const p = readParams(req, settingsPasswordParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/password')) return
  settingsHeaders(res)
  const again = (error: string) =>
    res
      .status(422)
      .type('html')
      .send(passwordPage({ csrf: settingsCsrf(ctx, req, res), error }))
  let throttle: Awaited<ReturnType<typeof guardCredentials>> | undefined
  if (
    await pageThrottled(res, async () => {
      await guardRequests(
        ctx,
        req,
        res,
        'password-changes',
        { subject: ctx.config.RATE_LIMIT_PASSWORD_CHANGES },
        `user:${user.id}`,
      )
      throttle = await guardCredentials(ctx, req, res, [`login:${user.username}`])
    })
  )
    return
  if (
    typeof p.current_password !== 'string' ||
    !(await verifyPassword(p.current_password, user.encrypted_password))
  ) {
    await throttle!.fail()
    return again('Current password is invalid.')
  }
  const problem = newPasswordProblem(p.password, p.password_confirmation)
  if (problem) return again(`${problem}.`)
  const encryptedPassword = await hashPassword(p.password as string)
  await ctx.db.transaction((trx) =>
    changePassword(trx, ctx.revocations, user.id, encryptedPassword, undefined),
  )
  startSession(res, ctx.config.SESSION_SECRET, user.id, ctx.config.PUBLIC_URL.startsWith('https:'))
  res.type('html').send(
    passwordPage({
      notice: 'Your password is changed. Apps that used the old one are signed out: sign in to them again.',
    }),
  )
}
