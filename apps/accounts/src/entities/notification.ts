import type { Knex } from '@roost/db'
import { accountsById } from '../queries/accounts'
import type { Urls } from './account'
import { renderAccount } from './account'
import type { NotificationRow, ReportRow, StatusRow } from '../db/rows'
import { renderStatuses } from './status'
import { renderReports } from './report'

/** Mastodon's Notification entity; `status` only for the types that concern one. */
export async function renderNotifications(db: Knex, urls: Urls, rows: NotificationRow[], viewerId: string) {
  const senders = await accountsById(
    db,
    rows.map((r) => r.from_account_id),
  )
  const statusIds = rows.map((r) => r.status_id).filter((id): id is string => !!id)
  const statusRows: StatusRow[] = statusIds.length ? await db('statuses').whereIn('id', statusIds) : []
  const rendered = await renderStatuses(db, urls, statusRows, viewerId)
  const statuses = new Map(statusRows.map((s, i) => [s.id, rendered[i]]))
  const reportIds = rows.flatMap((r) => (r.type === 'admin.report' && r.activity_id ? [r.activity_id] : []))
  const reportRows: ReportRow[] = reportIds.length ? await db('reports').whereIn('id', reportIds) : []
  const reports = new Map(
    (await renderReports(db, urls, reportRows)).map((r, i) => [String(reportRows[i]!.id), r] as const),
  )
  return rows.map((n) => ({
    id: n.id,
    type: n.type,
    created_at: new Date(n.created_at).toISOString(),
    group_key: n.group_key ?? `ungrouped-${n.id}`,
    // Only on filtered ones, as Mastodon's serializer (docs/discovery.md, "Notification policy and requests").
    ...(n.filtered ? { filtered: true } : {}),
    account: renderAccount(senders.get(n.from_account_id)!, urls),
    ...(n.status_id ? { status: statuses.get(n.status_id) ?? null } : {}),
    ...(n.type === 'admin.report' ? { report: reports.get(String(n.activity_id)) ?? null } : {}),
  }))
}
