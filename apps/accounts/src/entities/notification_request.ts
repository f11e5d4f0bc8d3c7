import type { Knex } from '@roost/db'
import type { StatusRow } from '../db/rows'
import type { RequestRow } from '../domain/notification_policies'
import { accountsById } from '../queries/accounts'
import type { Urls } from './account'
import { renderAccount } from './account'
import { renderStatuses } from './status'

/**
 * Mastodon's NotificationRequest entity: `{id, created_at, updated_at, notifications_count (a string), account,
 * last_status}` (docs/discovery.md, "Notification policy and requests").
 */
export async function renderNotificationRequests(db: Knex, urls: Urls, rows: RequestRow[], viewerId: string) {
  const senders = await accountsById(
    db,
    rows.map((r) => r.from_account_id),
  )
  const statusIds = rows.flatMap((r) => (r.last_status_id ? [r.last_status_id] : []))
  const statusRows: StatusRow[] = statusIds.length ? await db('statuses').whereIn('id', statusIds) : []
  const rendered = await renderStatuses(db, urls, statusRows, viewerId)
  const statuses = new Map(statusRows.map((s, i) => [String(s.id), rendered[i]]))
  return rows.map((r) => ({
    id: String(r.id),
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
    notifications_count: String(r.notifications_count),
    account: renderAccount(senders.get(String(r.from_account_id))!, urls),
    last_status: (r.last_status_id && statuses.get(String(r.last_status_id))) || null,
  }))
}
