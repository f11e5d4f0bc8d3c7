import type { Knex } from '@roost/db'
import type { ReportRow } from '../db/rows'
import { accountsById } from '../queries/accounts'
import type { Urls } from './account'
import { renderAccount } from './account'

/** What the Report entity and the admin's Admin::Report share, in their order. */
export const reportBasics = (r: ReportRow) => ({
  id: String(r.id),
  action_taken: !!r.action_taken_at,
  action_taken_at: r.action_taken_at ? new Date(r.action_taken_at).toISOString() : null,
  category: r.category,
  comment: r.comment,
  forwarded: r.forwarded,
  created_at: new Date(r.created_at).toISOString(),
})

/** Mastodon's Report entity (what the reporter and `admin.report` notifications see). */
export async function renderReports(db: Knex, urls: Urls, rows: ReportRow[]) {
  const targets = await accountsById(
    db,
    rows.map((r) => r.target_account_id),
  )
  return rows.map((r) => ({
    ...reportBasics(r),
    status_ids: r.status_ids.length ? r.status_ids.map(String) : null,
    rule_ids: r.rule_ids?.length ? r.rule_ids.map(String) : null,
    target_account: renderAccount(targets.get(r.target_account_id)!, urls),
  }))
}
