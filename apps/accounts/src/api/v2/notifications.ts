import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import {
  groupedNotificationsParams,
  notificationGroupParams,
  pageParams,
  readParams,
  unreadCountParams,
} from '@roost/routes'
import {
  badRequest,
  DEFAULT_ACCOUNTS_LIMIT,
  DEFAULT_NOTIFICATIONS_LIMIT,
  paramText,
  readPage,
  recordNotFound,
  setPageLinks,
} from '@roost/service'
import type { AccountsContext } from '../../context'
import { renderAccount, urlsOf } from '../../entities/account'
import type { AccountRow, NotificationRow } from '../../db/rows'
import type { ExpandAccounts } from '../../entities/notification_group'
import { renderNotificationGroups } from '../../entities/notification_group'
import { markersOf } from '../../domain/markers'
import { browsable, groupedTypesOf, pageGroups } from '../../queries/notification_groups'
import { requireUser } from '../../users/current'

/** Grouped notifications (docs/discovery.md, "Grouped notifications"). */

function expandAccountsOf(value: unknown): ExpandAccounts {
  if (value === undefined || value === '' || value === 'full') return 'full'
  if (value === 'partial_avatars') return 'partial_avatars'
  throw badRequest("Invalid value for 'expand_accounts'")
}

/**
 * GET /api/v2/notifications — up to `limit` (40/80) groups; Link next `max_id` (the oldest notification read
 * into the page), prev `min_id` (the newest), keeping limit, types, exclude_types, grouped_types, include_filtered.
 */
export async function listGroupedNotifications(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, groupedNotificationsParams)
  const expandAccounts = expandAccountsOf(p.expand_accounts)
  const page = readPage(p, DEFAULT_NOTIFICATIONS_LIMIT)
  const groupedTypes = groupedTypesOf(p.grouped_types)
  const browse = {
    types: p.types,
    excludeTypes: p.exclude_types,
    includeFiltered: p.include_filtered === true,
  }
  const rows = await pageGroups(() => browsable(ctx.db, account.id, browse), page, groupedTypes)

  const list = (v: string[] | undefined) => (v?.length ? v : undefined)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-not-empty',
    prev: 'min_id',
    kept: {
      limit: paramText(p.limit),
      types: list(p.types),
      exclude_types: list(p.exclude_types),
      grouped_types: list(p.grouped_types),
      include_filtered: paramText(req.query.include_filtered),
    },
  })
  res.json(
    await renderNotificationGroups(ctx.db, urlsOf(ctx.config), rows, account.id, {
      groupedTypes,
      expandAccounts,
      range: rows.length ? { min: String(rows.at(-1)!.id), max: String(rows[0]!.id) } : undefined,
    }),
  )
}

/** The query of a group's notifications by key (`ungrouped-<id>` is that one notification), newest first. */
function groupQuery(ctx: AccountsContext, accountId: string, key: string | undefined) {
  const query = browsable(ctx.db, accountId, { includeFiltered: true })
  const single = /^ungrouped-(\d{1,18})$/.exec(key ?? '')
  if (single) query.where('notifications.id', single[1]!)
  else query.where('notifications.group_key', key ?? '')
  return query
}

async function latestOfGroup(ctx: AccountsContext, accountId: string, key: string | undefined) {
  const row: NotificationRow | undefined = await groupQuery(ctx, accountId, key)
    .orderBy('notifications.id', 'desc')
    .first()
  if (!row) throw recordNotFound()
  return row
}

/** GET /api/v2/notifications/:group_key — the group, its figures over all its notifications. */
export async function showNotificationGroup(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, notificationGroupParams)
  const expandAccounts = expandAccountsOf(p.expand_accounts)
  const row = await latestOfGroup(ctx, account.id, String(req.params.id))
  const result = await renderNotificationGroups(ctx.db, urlsOf(ctx.config), [row], account.id, {
    groupedTypes: groupedTypesOf(undefined),
    expandAccounts,
  })
  if (!result.notification_groups.length) throw recordNotFound()
  res.json(result)
}

/**
 * GET /api/v2/notifications/:group_key/accounts — the accounts of the group's notifications, newest first,
 * paged by notification (40/80; Link next `max_id` when full, prev `min_id`).
 */
export async function notificationGroupAccounts(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, pageParams)
  await latestOfGroup(ctx, account.id, String(req.params.id))
  const page = readPage(p, DEFAULT_ACCOUNTS_LIMIT)
  const rows = await paginate<AccountRow & { notification_id: string }>(
    groupQuery(ctx, account.id, String(req.params.id))
      .clearSelect()
      .select('accounts.*', 'notifications.id as notification_id'),
    'notifications.id',
    page,
  )
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.notification_id,
    next: 'when-full',
    prev: 'min_id',
    kept: { limit: paramText(p.limit) },
  })
  const urls = urlsOf(ctx.config)
  res.json(rows.map((r) => renderAccount(r, urls)))
}

/** POST /api/v2/notifications/:group_key/dismiss — removes every notification of the group; `{}`. */
export async function dismissNotificationGroup(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  await latestOfGroup(ctx, account.id, String(req.params.id))
  const single = /^ungrouped-(\d{1,18})$/.exec(String(req.params.id))
  await ctx
    .db('notifications')
    .where({ account_id: account.id })
    .where(single ? { id: single[1] } : { group_key: String(req.params.id) })
    .delete()
  res.json({})
}

/**
 * GET /api/v2/notifications/unread_count — `{count}`: the groups newer than the user's notifications marker
 * (all when none), counted up to `limit` (100, at most 1000).
 */
export async function unreadGroupCount(ctx: AccountsContext, req: Request, res: Response) {
  const { account, user } = await requireUser(ctx, req)
  const p = readParams(req, unreadCountParams)
  const marker = (await markersOf(ctx.db, user.id, ['notifications'])).get('notifications')
  const page = readPage({ limit: p.limit }, 500)
  const limit = p.limit === undefined || p.limit === '' ? 100 : Math.min(page.limit, 1000)
  const rows = await pageGroups(
    () => browsable(ctx.db, account.id, { types: p.types, excludeTypes: p.exclude_types }),
    { limit, minId: marker?.last_read_id },
    groupedTypesOf(p.grouped_types),
  )
  res.json({ count: rows.length })
}

/** GET /api/v1/notifications/unread_count — `{count}`: notifications newer than the marker, up to 100/1000. */
export async function unreadNotificationCount(ctx: AccountsContext, req: Request, res: Response) {
  const { account, user } = await requireUser(ctx, req)
  const p = readParams(req, unreadCountParams)
  const marker = (await markersOf(ctx.db, user.id, ['notifications'])).get('notifications')
  const page = readPage({ limit: p.limit }, 500)
  const limit = p.limit === undefined || p.limit === '' ? 100 : Math.min(page.limit, 1000)
  const query = browsable(ctx.db, account.id, { types: p.types, excludeTypes: p.exclude_types })
    .clearSelect()
    .select('notifications.id')
    .limit(limit)
  if (marker) query.where('notifications.id', '>', marker.last_read_id)
  const [{ count }] = await ctx.db.from(query.as('unread')).count('* as count')
  res.json({ count: Number(count) })
}
