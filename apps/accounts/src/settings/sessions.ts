import type { Request, Response } from 'express'
import { readParams, revokeApplicationParams } from '@roost/routes'
import type { AccountsContext } from '../context'
import { revokeTokens } from '../domain/tokens'
import { formCsrf, settingsCsrf, settingsHeaders, settingsUser } from './common'
import type { AppSession } from './pages'
import { sessionsPage } from './pages'

/**
 * /settings/sessions (docs/security.md, "Sessions and apps"): the applications holding a live token of the user,
 * with the permissions of their tokens, when the first was made and when one was last used; revoking an
 * application revokes all its tokens of the user (each with its `token.revoked`, so push drops their subscriptions
 * and streams close, as /oauth/revoke does) and voids its unused authorization codes. Mastodon's
 * /oauth/authorized_applications.
 */
async function appsOf(ctx: AccountsContext, userId: string): Promise<AppSession[]> {
  const rows = await ctx
    .db('oauth_access_tokens')
    .join('oauth_applications', 'oauth_applications.id', 'oauth_access_tokens.application_id')
    .where('oauth_access_tokens.user_id', userId)
    .whereNull('oauth_access_tokens.revoked_at')
    .groupBy('oauth_applications.id', 'oauth_applications.name', 'oauth_applications.website')
    .orderBy('created_at', 'desc')
    .select(
      'oauth_applications.id as application_id',
      'oauth_applications.name',
      'oauth_applications.website',
      ctx.db.raw("string_agg(oauth_access_tokens.scopes, ' ') as scopes"),
      ctx.db.raw('min(oauth_access_tokens.created_at) as created_at'),
      ctx.db.raw('max(oauth_access_tokens.last_used_at) as last_used_at'),
    )
  return rows.map((r) => ({
    ...r,
    application_id: String(r.application_id),
    scopes: [...new Set(String(r.scopes).split(' ').filter(Boolean))],
  }))
}

async function render(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  userId: string,
  o: { status?: number; notice?: string; error?: string } = {},
) {
  settingsHeaders(res)
  res
    .status(o.status ?? 200)
    .type('html')
    .send(sessionsPage({ csrf: settingsCsrf(ctx, req, res), apps: await appsOf(ctx, userId), ...o }))
}

/** GET /settings/sessions */
export async function showSessions(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (user) await render(ctx, req, res, user.id)
}

/** POST /settings/sessions/revoke — `application_id`. */
export async function revokeApplication(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  const p = readParams(req, revokeApplicationParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/sessions')) return
  const applicationId =
    typeof p.application_id === 'string' && /^\d{1,20}$/.test(p.application_id) ? p.application_id : undefined
  const app = applicationId
    ? await ctx.db('oauth_applications').where({ id: applicationId }).first('name')
    : undefined
  const revoked = app
    ? await revokeTokens({ db: ctx.db, revocations: ctx.revocations }, (q) =>
        q.where({ user_id: user.id, application_id: applicationId }),
      )
    : []
  if (!revoked.length)
    return render(ctx, req, res, user.id, { status: 404, error: 'This application holds no token of yours.' })
  await ctx
    .db('oauth_access_grants')
    .where({ user_id: user.id, application_id: applicationId })
    .whereNull('used_at')
    .update({ used_at: ctx.db.fn.now() })
  await render(ctx, req, res, user.id, { notice: `${app.name} was signed out of your account.` })
}
