import type { Request, Response } from 'express'
import { emailChangeParams, readParams } from '@roost/routes'
import type { AccountsContext } from '../context'
import { pageThrottled } from '../auth/passwords'
import * as outbox from '../outbox/outbox'
import { guardCredentials, guardRequests } from '../oauth/throttle'
import { verifyPassword } from '../domain/password-hashes'
import { formCsrf, settingsCsrf, settingsHeaders, settingsUser } from './common'
import { emailPage } from './pages'

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/**
 * /settings/email (docs/security.md, "Changing the e-mail address"): a new address needs the current password; it
 * is kept as `unconfirmed_email`, a link sent to it (the change happens when the link is opened, by
 * GET /auth/confirmation) and a warning to the current address. Throttled as other mail (RATE_LIMIT_MAIL_*); a
 * wrong password counts as a failed sign-in.
 */
export async function showEmail(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  settingsHeaders(res)
  res.type('html').send(
    emailPage({
      csrf: settingsCsrf(ctx, req, res),
      email: user.email,
      unconfirmed: user.unconfirmed_email,
    }),
  )
}

/** POST /settings/email — `email`, `current_password`. */
export async function changeEmail(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  const p = readParams(req, emailChangeParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/email')) return
  settingsHeaders(res)
  const again = (status: number, error: string) =>
    res
      .status(status)
      .type('html')
      .send(
        emailPage({
          csrf: settingsCsrf(ctx, req, res),
          email: user.email,
          unconfirmed: user.unconfirmed_email,
          error,
        }),
      )
  let throttle: Awaited<ReturnType<typeof guardCredentials>> | undefined
  if (
    await pageThrottled(
      res,
      async () => (throttle = await guardCredentials(ctx, req, res, [`login:${user.username}`])),
    )
  )
    return
  if (
    typeof p.current_password !== 'string' ||
    !(await verifyPassword(p.current_password, user.encrypted_password))
  ) {
    await throttle!.fail()
    return again(422, 'Current password is invalid.')
  }
  const email = typeof p.email === 'string' ? p.email.trim() : ''
  if (!EMAIL.test(email) || email.length > 320) return again(422, 'Enter a valid e-mail address.')
  if (email.toLowerCase() === user.email.toLowerCase()) return again(422, 'This is already your address.')
  const taken = await ctx
    .db('users')
    .whereRaw('lower(email) = lower(?)', [email])
    .whereNot('id', user.id)
    .first('id')
  if (taken) return again(422, 'This address is already taken.')
  const budgets = { ip: ctx.config.RATE_LIMIT_MAIL_IP, subject: ctx.config.RATE_LIMIT_MAIL_ACCOUNT }
  if (
    await pageThrottled(res, () => guardRequests(ctx, req, res, 'email-changes', budgets, `user:${user.id}`))
  )
    return
  await ctx.db.transaction(async (trx) => {
    await trx('users').where({ id: user.id }).update({ unconfirmed_email: email })
    await outbox.add(
      trx,
      { event: 'mail.email_change', userId: user.id },
      { event: 'mail.email_change_warning', userId: user.id },
    )
  })
  res.type('html').send(
    emailPage({
      csrf: settingsCsrf(ctx, req, res),
      email: user.email,
      unconfirmed: email,
      notice: `A link was sent to ${email}: your address changes when you open it.`,
    }),
  )
}
