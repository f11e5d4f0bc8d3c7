import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { notificationsParams, readParams } from '@roost/routes'
import {
  DEFAULT_NOTIFICATIONS_LIMIT,
  paramText,
  readPage,
  recordNotFound,
  setPageLinks,
} from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { parseId } from '../../../domain/records'
import type { NotificationRow } from '../../../db/rows'
import { renderNotifications } from '../../../entities/notification'
import { requireUser } from '../../../users/current'
import { hiddenIn } from '../../../queries/filters'

/** The signed-in user's notifications, from senders who are not suspended. */
function notificationsOf(ctx: AccountsContext, accountId: string) {
  return ctx
    .db('notifications')
    .join('accounts', 'accounts.id', 'notifications.from_account_id')
    .where('notifications.account_id', accountId)
    .whereNull('accounts.suspended_at')
    .select('notifications.*')
}

/** GET /api/v1/notifications — types[], exclude_types[], account_id, include_filtered; Link next max_id / prev min_id when non-empty. */
export async function listNotifications(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, notificationsParams)
  const page = readPage(p, DEFAULT_NOTIFICATIONS_LIMIT)
  const types = p.types ?? []
  const excludeTypes = p.exclude_types ?? []
  const query = notificationsOf(ctx, account.id)
  if (p.include_filtered !== true) query.where('notifications.filtered', false)
  if (types.length) query.whereIn('notifications.type', types)
  if (excludeTypes.length) query.whereNotIn('notifications.type', excludeTypes)
  const from = p.account_id
  if (from !== undefined) query.where('notifications.from_account_id', parseId(from) ?? '0')
  const rows = await paginate<NotificationRow>(query, 'notifications.id', page)

  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-not-empty',
    prev: 'min_id',
    kept: {
      limit: paramText(p.limit),
      account_id: from,
      types: types.length ? types : undefined,
      exclude_types: excludeTypes.length ? excludeTypes : undefined,
      include_filtered: paramText(req.query.include_filtered),
    },
  })
  // Notifications about a status a filter hides in `notifications` leave the page (the Link is from the rows read).
  const rendered = await renderNotifications(ctx.db, urlsOf(ctx.config), rows, account.id)
  res.json(rendered.filter((n) => !(n.status && hiddenIn(n.status, 'notifications'))))
}

async function ownNotification(ctx: AccountsContext, req: Request) {
  const { account } = await requireUser(ctx, req)
  const id = parseId(req.params.id)
  const row: NotificationRow | undefined = id
    ? await notificationsOf(ctx, account.id).where('notifications.id', id).first()
    : undefined
  if (!row) throw recordNotFound()
  return { account, row }
}

/** GET /api/v1/notifications/:id */
export async function getNotification(ctx: AccountsContext, req: Request, res: Response) {
  const { account, row } = await ownNotification(ctx, req)
  const [rendered] = await renderNotifications(ctx.db, urlsOf(ctx.config), [row], account.id)
  res.json(rendered)
}

/** POST /api/v1/notifications/:id/dismiss */
export async function dismissNotification(ctx: AccountsContext, req: Request, res: Response) {
  const { row } = await ownNotification(ctx, req)
  await ctx.db('notifications').where({ id: row.id }).delete()
  res.json({})
}

/** POST /api/v1/notifications/clear */
export async function clearNotifications(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  await ctx.db('notifications').where({ account_id: account.id }).delete()
  res.json({})
}
