import type { Request, Response } from 'express'
import { deleteAccountParams, readParams } from '@roost/routes'
import { HttpError } from '@roost/service'
import type { AccountsContext } from '../context'
import { requestAccountDeletion } from '../domain/deletion'
import { guardCredentials } from '../oauth/throttle'
import { publishLoginState } from '../users/login-state'
import { verifyPassword } from '../users/passwords'
import { problemPage } from './pages'
import { checkForm, requireSettingsUser, settingsCsrf } from './settings'
import { deletedPage, deletePage } from './settings-pages'

/**
 * Leaving (docs/security.md, "Leaving"): Mastodon's /settings/delete. Mastodon has no client API for it, nor does
 * Roost (docs/mastodon-compatibility.md).
 */

/** GET /settings/delete */
export async function showDelete(ctx: AccountsContext, req: Request, res: Response) {
  const me = await requireSettingsUser(ctx, req, res)
  if (me)
    res.type('html').send(deletePage({ csrf: settingsCsrf(ctx, req, res), username: me.account.username }))
}

/**
 * POST /settings/delete — with the password: the account is suspended at once (its tokens revoked, the session
 * ended) and the worker removes the rest. A wrong password counts as a failed sign-in (oauth/throttle.ts) and
 * changes nothing.
 */
export async function postDelete(ctx: AccountsContext, req: Request, res: Response) {
  const me = await requireSettingsUser(ctx, req, res)
  if (!me) return
  const p = readParams(req, deleteAccountParams)
  if (!checkForm(ctx, req, res, p.csrf_token, '/settings/delete')) return
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
  const password = typeof p.password === 'string' ? p.password : ''
  if (!password || !(await verifyPassword(password, me.user.encrypted_password))) {
    await throttle.fail()
    return res
      .status(422)
      .type('html')
      .send(
        deletePage({
          csrf: settingsCsrf(ctx, req, res),
          username: me.account.username,
          error: 'The password is not right.',
        }),
      )
  }
  await ctx.db.transaction((trx) => requestAccountDeletion(trx, ctx.revocations, me.account.id))
  await publishLoginState(ctx, me.account.id)
  res.clearCookie('roost_session', { path: '/' })
  res.type('html').send(deletedPage(me.account.username))
}
