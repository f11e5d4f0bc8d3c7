import type { Request, Response } from 'express'
import { Forbidden, Gone, Invalid, NotFound } from '@roost/errors'
import { createInviteParams, inviteSignUpParams, readParams, settingsFormParams } from '@roost/routes'
import type { AccountsContext } from '../context'
import {
  createInvite,
  expireInvite,
  listInvites,
  mayInvite,
  readNewInvite,
  usableInvite,
} from '../domain/invites'
import { renderInvite } from '../entities/invite'
import { urlsOf } from '../entities/account'
import { clientAddress, ipSignUpSeverity } from '../ip_blocks/rules'
import { csrfToken, validCsrf } from '../oauth/session'
import { requireUser } from '../users/current'
import { publishLoginState } from '../users/login-state'
import { newPasswordProblem } from '../domain/password-hashes'
import { registerUser, validateSignUp } from '../users/sign-up'
import { pageHeaders } from '../auth/passwords'
import { problemPage } from '../auth/pages'
import { formCsrf, settingsAccount, settingsCsrf } from './common'
import { invitesPage, inviteSignUpPage, welcomePage } from './data-pages'

/** Invites (docs/security.md, "Invites"): the settings page, the invite page's sign-up, and the Roost API. */

const base = (ctx: AccountsContext) => urlsOf(ctx.config).base

async function renderInvites(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  user: { id: string; role: string },
  status: number,
  message: { error?: string; notice?: string } = {},
) {
  res
    .status(status)
    .type('html')
    .send(
      invitesPage({
        csrf: settingsCsrf(ctx, req, res),
        base: base(ctx),
        invites: await listInvites(ctx.db, user.id),
        allowed: mayInvite(user.role, ctx.config.INVITES_MIN_ROLE),
        ...message,
      }),
    )
}

/** GET /settings/invites */
export async function showInvites(ctx: AccountsContext, req: Request, res: Response) {
  const me = await settingsAccount(ctx, req, res)
  if (me) await renderInvites(ctx, req, res, me.user, 200)
}

/** The 403 or 422 of a form as its page, with the error; anything else goes on. */
function formError(err: unknown): { status: number; error: string } {
  if (err instanceof Forbidden) return { status: 403, error: err.message }
  if (err instanceof Invalid) return { status: 422, error: err.message }
  if (err instanceof NotFound) return { status: 404, error: 'No such invite' }
  throw err
}

/** POST /settings/invites — a new invite link. */
export async function postInvite(ctx: AccountsContext, req: Request, res: Response) {
  const me = await settingsAccount(ctx, req, res)
  if (!me) return
  const p = readParams(req, createInviteParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/invites')) return
  try {
    const invite = await ctx.db.transaction((trx) =>
      createInvite(trx, me.user, ctx.config.INVITES_MIN_ROLE, readNewInvite(p)),
    )
    await renderInvites(ctx, req, res, me.user, 200, {
      notice: `Invite link made: ${base(ctx)}/invite/${invite.code}`,
    })
  } catch (err) {
    const { status, error } = formError(err)
    await renderInvites(ctx, req, res, me.user, status, { error })
  }
}

/** POST /settings/invites/:id/expire */
export async function postExpireInvite(ctx: AccountsContext, req: Request, res: Response) {
  const me = await settingsAccount(ctx, req, res)
  if (!me) return
  const p = readParams(req, settingsFormParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/invites')) return
  try {
    await ctx.db.transaction((trx) => expireInvite(trx, me.user.id, String(req.params.id)))
    await renderInvites(ctx, req, res, me.user, 200, { notice: 'The invite link no longer works.' })
  } catch (err) {
    const { status, error } = formError(err)
    await renderInvites(ctx, req, res, me.user, status, { error })
  }
}

/** An unusable invite link as a page: 404 unknown, 410 expired or used up. */
function badInvite(res: Response, err: unknown) {
  if (err instanceof NotFound)
    return res.status(404).type('html').send(problemPage('This invite link does not work', err.message))
  if (err instanceof Gone)
    return res.status(410).type('html').send(problemPage('This invite link does not work', err.message))
  throw err
}

const inviteCsrf = (ctx: AccountsContext, req: Request, res: Response) =>
  csrfToken(req, res, ctx.config.SESSION_SECRET, ctx.config.PUBLIC_URL.startsWith('https:'), '/invite')

async function inviterOf(ctx: AccountsContext, userId: string): Promise<string> {
  const row = await ctx
    .db('users')
    .join('accounts', 'accounts.id', 'users.account_id')
    .where('users.id', userId)
    .first('accounts.username')
  return row?.username ?? ''
}

/** GET /invite/:code — the sign-up form of a usable invite, whatever the registration mode. */
export async function showInvite(ctx: AccountsContext, req: Request, res: Response) {
  pageHeaders(res)
  const code = String(req.params.code)
  let invite
  try {
    invite = await usableInvite(ctx.db, code)
  } catch (err) {
    return badInvite(res, err)
  }
  res.type('html').send(
    inviteSignUpPage({
      csrf: inviteCsrf(ctx, req, res),
      code,
      inviter: await inviterOf(ctx, invite.user_id),
    }),
  )
}

/**
 * POST /invite/:code — signs up with the invite (Mastodon's RegistrationsController with `invite_code`): allowed
 * while registrations are closed, approved at once; the e-mail address still needs confirming when
 * REQUIRE_EMAIL_CONFIRMATION is on. The sign-up's rules are the API's (`validateSignUp`); IP rules apply.
 */
export async function inviteSignUp(ctx: AccountsContext, req: Request, res: Response) {
  pageHeaders(res)
  const code = String(req.params.code)
  const p = readParams(req, inviteSignUpParams)
  if (!validCsrf(req, ctx.config.SESSION_SECRET, p.csrf_token))
    return res
      .status(403)
      .type('html')
      .send(
        problemPage(
          'The form has expired',
          'The form was sent without its security token. Reload it and try again.',
          {
            href: `/invite/${encodeURIComponent(code)}`,
            label: 'Back to the form',
          },
        ),
      )
  let invite
  try {
    invite = await usableInvite(ctx.db, code)
  } catch (err) {
    return badInvite(res, err)
  }
  const severity = await ipSignUpSeverity(ctx, clientAddress(ctx, req))
  if (severity === 'sign_up_block' || severity === 'no_access')
    return res
      .status(403)
      .type('html')
      .send(problemPage('Sign-up refused', 'Sign-ups from your network are not allowed.'))
  const again = async (error: string) =>
    res
      .status(422)
      .type('html')
      .send(
        inviteSignUpPage({
          csrf: inviteCsrf(ctx, req, res),
          code,
          inviter: await inviterOf(ctx, invite.user_id),
          values: {
            username: typeof p.username === 'string' ? p.username : '',
            email: typeof p.email === 'string' ? p.email : '',
          },
          error,
        }),
      )
  const mismatch = newPasswordProblem(p.password, p.password_confirmation)
  if (mismatch) return again(mismatch)
  let signUp
  try {
    // Approval is the invite's: a reason is never required of an invited sign-up.
    signUp = await validateSignUp(ctx.db, { ...ctx.config, REGISTRATIONS_MODE: 'open' }, p)
  } catch (err) {
    if (!(err instanceof Invalid)) throw err
    return again(err.message)
  }
  let accountId: string
  try {
    ;({ accountId } = await registerUser(ctx.db, ctx.config, signUp, null, {
      inviteId: invite.id,
      requiresApproval: severity === 'sign_up_requires_approval',
    }))
  } catch (err) {
    if (err instanceof Gone) return badInvite(res, err)
    if ((err as { code?: string }).code === '23505')
      return again('This username or e-mail address has just been taken.')
    throw err
  }
  await publishLoginState(ctx, accountId)
  res
    .type('html')
    .send(welcomePage({ username: signUp.username, confirm: ctx.config.REQUIRE_EMAIL_CONFIRMATION }))
}

/** GET /api/v1/invites — the user's invites (a Roost addition: Mastodon has none; docs/mastodon-compatibility.md). */
export async function apiListInvites(ctx: AccountsContext, req: Request, res: Response) {
  const { user } = await requireUser(ctx, req)
  res.json((await listInvites(ctx.db, user.id)).map((i) => renderInvite(i, base(ctx))))
}

/** POST /api/v1/invites — max_uses, expires_in (seconds), comment; 403 when the user may not invite. */
export async function apiCreateInvite(ctx: AccountsContext, req: Request, res: Response) {
  const { user } = await requireUser(ctx, req)
  const p = readParams(req, createInviteParams)
  const invite = await ctx.db.transaction((trx) =>
    createInvite(trx, user, ctx.config.INVITES_MIN_ROLE, readNewInvite(p)),
  )
  res.json(renderInvite(invite, base(ctx)))
}

/** DELETE /api/v1/invites/:id — expires the invite (it stays listed, as Mastodon's). */
export async function apiExpireInvite(ctx: AccountsContext, req: Request, res: Response) {
  const { user } = await requireUser(ctx, req)
  const invite = await ctx.db.transaction((trx) => expireInvite(trx, user.id, String(req.params.id)))
  res.json(renderInvite(invite, base(ctx)))
}
