import type { Knex } from '@roost/db'
import { recordNotFound, unprocessable } from '@roost/service'
import * as outbox from '../outbox/outbox'
import { parseId } from './records'

export interface ReportRow {
  id: string
  account_id: string
  target_account_id: string
  status_ids: string[]
  rule_ids: string[] | null
  comment: string
  category: 'spam' | 'legal' | 'violation' | 'other'
  forwarded: boolean
  assigned_account_id: string | null
  action_taken_at: Date | null
  created_at: Date
}

export interface NewReport {
  statusIds?: string[]
  ruleIds?: string[]
  comment?: string
  category?: ReportRow['category']
}

/**
 * Mastodon's ReportService, in the caller's transaction: the reported statuses must be the target's (else 404, as
 * Mastodon's `find`), the rules must exist (and are kept only for a `violation`, which naming rules implies when
 * no category is given). Records `report.created`: the accounts worker notifies the moderators (`admin.report`).
 * Every account is local, so there is nothing to forward.
 */
export async function createReport(trx: Knex, reporterId: string, targetId: string, r: NewReport) {
  const statusIds = [...new Set(r.statusIds ?? [])].map(parseId)
  if (statusIds.some((id) => !id)) throw recordNotFound()
  if (statusIds.length) {
    const found: string[] = await trx('statuses')
      .whereIn('id', statusIds as string[])
      .where({ account_id: targetId })
      .pluck('id')
    if (found.length !== statusIds.length) throw recordNotFound()
  }
  const category = r.category ?? (r.ruleIds?.length ? 'violation' : 'other')
  let ruleIds: string[] | null = null
  if (category === 'violation') {
    ruleIds = [...new Set(r.ruleIds ?? [])]
    const valid = ruleIds.every((id) => parseId(id))
    const found =
      valid && ruleIds.length
        ? await trx('rules').whereIn('id', ruleIds).whereNull('deleted_at').pluck('id')
        : []
    if (!valid || found.length !== ruleIds.length)
      throw unprocessable('Validation failed: Rule ids does not reference valid rules')
  }
  const [row] = await trx('reports')
    .insert({
      account_id: reporterId,
      target_account_id: targetId,
      status_ids: statusIds,
      rule_ids: ruleIds,
      comment: r.comment ?? '',
      category,
    })
    .returning('*')
  await outbox.add(trx, {
    event: 'report.created',
    reportId: row.id,
    accountId: reporterId,
    targetAccountId: targetId,
  })
  return row as ReportRow
}

/** The accounts told of a new report: moderators and admins who can sign in, but not the reported account. */
export const staffToNotify = (trx: Knex, report: { target_account_id: string }): Promise<string[]> =>
  trx('users')
    .join('accounts', 'accounts.id', 'users.account_id')
    .whereIn('users.role', ['moderator', 'admin'])
    .where({ 'users.disabled': false })
    .whereNull('accounts.suspended_at')
    .whereNot('accounts.id', report.target_account_id)
    .orderBy('accounts.id')
    .pluck('accounts.id')
