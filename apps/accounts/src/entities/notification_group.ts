import type { Knex } from '@roost/db'
import { hiddenIn } from '../queries/filters'
import type { GroupData } from '../queries/notification_groups'
import { groupKeyOf, groupsData } from '../queries/notification_groups'
import { accountsById } from '../queries/accounts'
import type { NotificationRow, ReportRow, StatusRow } from '../db/rows'
import type { Urls } from './account'
import { renderAccount } from './account'
import { renderReports } from './report'
import { renderStatuses } from './status'

export type ExpandAccounts = 'full' | 'partial_avatars'

/** Mastodon's PartialAccountWithAvatar (the sample accounts past the first with `expand_accounts=partial_avatars`). */
function renderPartialAccount(account: ReturnType<typeof renderAccount>) {
  const { id, acct, locked, bot, url, avatar, avatar_static } = account
  return { id, acct, locked, bot, url, avatar, avatar_static }
}

/**
 * Mastodon's GroupedNotificationsResults for groups represented by `rows` (newest first): the groups, and the
 * accounts and statuses they name, each once. `range` (the page's oldest and newest notification ids) bounds
 * the groups' figures and adds page_min_id, page_max_id and latest_page_notification_at; without it (one group
 * asked for by key) the figures cover the whole group. Groups about a status a `hide` filter of the
 * `notifications` context matches are left out.
 */
export async function renderNotificationGroups(
  db: Knex,
  urls: Urls,
  rows: NotificationRow[],
  viewerId: string,
  options: { groupedTypes: string[]; expandAccounts: ExpandAccounts; range?: { min: string; max: string } },
) {
  const keyed = rows.map((row) => ({ row, key: groupKeyOf(row, options.groupedTypes) }))
  const data = await groupsData(
    db,
    viewerId,
    keyed.filter((k) => !k.key.startsWith('ungrouped-')).map((k) => k.key),
    options.range,
  )
  const groupOf = ({ row, key }: { row: NotificationRow; key: string }): GroupData =>
    data.get(key) ?? {
      mostRecentId: String(row.id),
      sampleAccountIds: [String(row.from_account_id)],
      count: 1,
      pageMinId: String(row.id),
      latestAt: row.created_at,
    }

  const statusIds = [...new Set(rows.flatMap((r) => (r.status_id ? [String(r.status_id)] : [])))]
  const statusRows: StatusRow[] = statusIds.length ? await db('statuses').whereIn('id', statusIds) : []
  const rendered = await renderStatuses(db, urls, statusRows, viewerId)
  const statuses = new Map(statusRows.map((s, i) => [String(s.id), rendered[i]!]))
  const shown = keyed.filter(({ row }) => {
    if (!row.status_id) return true
    const status = statuses.get(String(row.status_id))
    return !!status && !hiddenIn(status, 'notifications')
  })

  const groups = shown.map((k) => ({ ...k, group: groupOf(k) }))
  const accountIds = [...new Set(groups.flatMap((g) => g.group.sampleAccountIds))]
  const accountRows = await accountsById(db, accountIds)
  const accounts = new Map(
    [...accountRows.values()].map((a) => [String(a.id), renderAccount(a, urls)] as const),
  )

  const reportIds = groups.flatMap((g) =>
    g.row.type === 'admin.report' && g.row.activity_id ? [g.row.activity_id] : [],
  )
  const reportRows: ReportRow[] = reportIds.length ? await db('reports').whereIn('id', reportIds) : []
  const reports = new Map(
    (await renderReports(db, urls, reportRows)).map((r, i) => [String(reportRows[i]!.id), r] as const),
  )

  const full =
    options.expandAccounts === 'partial_avatars'
      ? [...new Set(groups.flatMap((g) => g.group.sampleAccountIds.slice(0, 1)))]
      : accountIds
  const partial =
    options.expandAccounts === 'partial_avatars'
      ? [...new Set(groups.flatMap((g) => g.group.sampleAccountIds.slice(1)))].filter(
          (id) => !full.includes(id),
        )
      : []
  const usedStatuses = [...new Set(groups.flatMap((g) => (g.row.status_id ? [String(g.row.status_id)] : [])))]

  return {
    accounts: full.flatMap((id) => accounts.get(id) ?? []),
    ...(options.expandAccounts === 'partial_avatars'
      ? { partial_accounts: partial.flatMap((id) => accounts.get(id) ?? []).map(renderPartialAccount) }
      : {}),
    statuses: usedStatuses.flatMap((id) => statuses.get(id) ?? []),
    notification_groups: groups.map(({ row, key, group }) => ({
      group_key: key,
      notifications_count: group.count,
      type: row.type,
      // A JSON number, as Mastodon's (notification ids stay below 2^53).
      most_recent_notification_id: Number(group.mostRecentId),
      ...(options.range
        ? {
            page_min_id: group.pageMinId,
            page_max_id: group.mostRecentId,
            latest_page_notification_at: new Date(group.latestAt).toISOString(),
          }
        : {}),
      sample_account_ids: group.sampleAccountIds.filter((id) => accounts.has(id)),
      ...(row.status_id ? { status_id: String(row.status_id) } : {}),
      ...(row.type === 'admin.report' ? { report: reports.get(String(row.activity_id)) ?? null } : {}),
    })),
  }
}
