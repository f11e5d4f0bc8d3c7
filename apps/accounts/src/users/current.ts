import type { Request } from 'express'
import { firstRowPerTable } from '@roost/db'
import { forbidden, userRequired } from '@roost/service'
import type { AccountsContext } from '../context'
import type { AccountRow, UserRow } from '../db/rows'
import { home, list } from '../feeds/store'
import * as outbox from '../outbox/outbox'
import { loginRefusal } from './login-state'
import { stickToPrimary } from '../replica'

export interface CurrentUser {
  user: UserRow
  account: AccountRow
  /** The app the request's token was issued to (Mastodon's `doorkeeper_token.application`), as statuses show it. */
  application?: { id: string; name: string; website: string | null }
}

/**
 * Mastodon's `require_user!`: the token must belong to a user (app tokens → 422) whose login is usable
 * (unconfirmed e-mail, pending approval, disabled or suspended → 403), checked on every request because those states change.
 */
export async function requireUser(ctx: AccountsContext, req: Request): Promise<CurrentUser> {
  const userId = req.token?.userId
  if (!userId) throw userRequired()
  // The user, the account and the token's app in one round trip (docs/performance.md, "Write path").
  const [user, account, token, application] =
    (await firstRowPerTable<
      [UserRow, AccountRow, { last_used_at: Date | null }, Partial<NonNullable<CurrentUser['application']>>]
    >(
      ctx.db,
      `SELECT users.*, accounts.*, oauth_access_tokens.last_used_at,
              oauth_applications.id, oauth_applications.name, oauth_applications.website
         FROM users JOIN accounts ON accounts.id = users.account_id
         LEFT JOIN oauth_access_tokens ON oauth_access_tokens.id = ?
         LEFT JOIN oauth_applications ON oauth_applications.id = oauth_access_tokens.application_id
        WHERE users.id = ?`,
      [req.token!.tokenId, userId],
    )) ?? []
  if (!user || !account) throw userRequired()
  const refusal = loginRefusal({ ...user, suspended_at: account.suspended_at })
  if (refusal) throw forbidden(refusal)
  // A write: this account's lag-tolerant reads stay on the primary for a moment (docs/operations.md, "Read replica").
  if (req.method !== 'GET' && req.method !== 'HEAD') await stickToPrimary(ctx, account.id)
  await noteActivity(ctx, user)
  await noteTokenUse(ctx, req.token!.tokenId, token?.last_used_at ?? null)
  return {
    user,
    account,
    application: application?.id ? (application as CurrentUser['application']) : undefined,
  }
}

const DAY_MS = 24 * 3600 * 1000
const HOUR_MS = 3600 * 1000

/** The sessions page's "last used" (docs/security.md, "Sessions and apps"): moved at most once an hour. */
async function noteTokenUse(ctx: AccountsContext, tokenId: string, last: Date | null) {
  if (last && Date.now() - new Date(last).getTime() < HOUR_MS) return
  await ctx.db('oauth_access_tokens').where({ id: tokenId }).update({ last_used_at: ctx.db.fn.now() })
}

/**
 * Mastodon's user tracking: each request moves `current_sign_in_at` forward, at most once a day. Home and list
 * feeds are kept only for users active within USER_ACTIVE_DAYS, so a user back after longer gets them rebuilt
 * (docs/feeds.md, "Regeneration"): the home feed by the worker at once, as Mastodon's sign-in starts its
 * RegenerationWorker, its reads answering 206 with the newest statuses meanwhile; the lists on their next read.
 */
async function noteActivity(ctx: AccountsContext, user: UserRow) {
  const last = new Date(user.current_sign_in_at).getTime()
  if (Date.now() - last < DAY_MS) return
  await ctx.db('users').where({ id: user.id }).update({ current_sign_in_at: ctx.db.fn.now() })
  // The week's logins of GET /api/v1/instance/activity (docs/discovery.md, "Instance activity").
  await ctx.db.raw(
    `INSERT INTO weekly_logins (week, user_id) VALUES (date_trunc('week', now() AT TIME ZONE 'UTC')::date, ?)
     ON CONFLICT DO NOTHING`,
    [user.id],
  )
  if (Date.now() - last <= ctx.config.USER_ACTIVE_DAYS * DAY_MS) return
  const feed = home(user.account_id)
  await ctx.feeds.drop(feed)
  await ctx.feeds.withClaim(feed, () =>
    outbox.add(ctx.db, { event: 'home_feed.missing', accountId: user.account_id }),
  )
  const lists: string[] = await ctx.db('lists').where({ account_id: user.account_id }).pluck('id')
  for (const id of lists) await ctx.feeds.drop(list(id))
}

/** The signed-in user on routes where a token is optional (public reads): undefined when anonymous. */
export async function optionalUser(ctx: AccountsContext, req: Request): Promise<CurrentUser | undefined> {
  return req.token?.userId ? requireUser(ctx, req) : undefined
}
