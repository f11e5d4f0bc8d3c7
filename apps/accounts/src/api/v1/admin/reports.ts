import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import type { Knex } from '@roost/db'
import { adminReportsParams, adminUpdateReportParams, readParams } from '@roost/routes'
import { paramText, readPage, recordNotFound, setPageLinks, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { parseId } from '../../../domain/records'
import type { AdminAccountRow, ReportRow, RuleRow, StatusRow } from '../../../db/rows'
import { activeRules, renderRule } from '../../../domain/rules'
import { logAction } from '../../../domain/action_log'
import { adminEvent } from '../../../domain/webhooks'
import { urlsOf } from '../../../entities/account'
import { reportBasics } from '../../../entities/report'
import { renderStatuses } from '../../../entities/status'
import { requirePermission } from '../../../users/roles'
import { adminAccounts, renderAdminAccount } from './accounts'

/** The moderators' side of reports (docs/discovery.md, "Reports"): moderators and admins only. */

const ADMIN_REPORTS_LIMIT = 100

/** Mastodon's Admin::Report for a batch of reports, as `viewerId` (a moderator) sees them. */
export async function renderAdminReports(
  ctx: Pick<AccountsContext, 'db' | 'config'>,
  rows: ReportRow[],
  viewerId: string,
) {
  const db = ctx.db
  const accountIds = [
    ...new Set(
      rows.flatMap((r) =>
        [r.account_id, r.target_account_id, r.assigned_account_id, r.action_taken_by_account_id].flatMap(
          (id) => (id ? [String(id)] : []),
        ),
      ),
    ),
  ]
  const statusIds = [...new Set(rows.flatMap((r) => r.status_ids.map(String)))]
  const ruleIds = [...new Set(rows.flatMap((r) => (r.rule_ids ?? []).map(String)))]
  const [accountRows, statusRows, ruleRows] = await Promise.all([
    accountIds.length
      ? (adminAccounts(db).whereIn('accounts.id', accountIds) as Promise<AdminAccountRow[]>)
      : Promise.resolve([] as AdminAccountRow[]),
    statusIds.length
      ? (db('statuses').whereIn('id', statusIds) as Promise<StatusRow[]>)
      : Promise.resolve([]),
    ruleIds.length ? (db('rules').whereIn('id', ruleIds) as Promise<RuleRow[]>) : Promise.resolve([]),
  ])
  const accounts = new Map(accountRows.map((a) => [String(a.id), renderAdminAccount(a, ctx)]))
  const rendered = await renderStatuses(db, urlsOf(ctx.config), statusRows, viewerId)
  const statuses = new Map(statusRows.map((s, i) => [String(s.id), rendered[i]!]))
  const account = (id: string | null) => (id ? (accounts.get(String(id)) ?? null) : null)
  return rows.map((r) => ({
    ...reportBasics(r),
    updated_at: new Date(r.updated_at).toISOString(),
    account: account(r.account_id),
    target_account: account(r.target_account_id),
    assigned_account: account(r.assigned_account_id),
    action_taken_by_account: account(r.action_taken_by_account_id),
    statuses: r.status_ids.flatMap((id) => statuses.get(String(id)) ?? []),
    rules: (r.rule_ids ?? []).flatMap((id) => {
      const rule = ruleRows.find((x) => String(x.id) === String(id))
      return rule ? [renderRule(rule)] : []
    }),
  }))
}

/**
 * GET /api/v1/admin/reports — unresolved reports (`resolved=true`: resolved ones), of a reporter (`account_id`)
 * or a reported account (`target_account_id`), newest first, limit 100/200; Link next `max_id` when full, prev
 * `min_id`.
 */
export async function listAdminReports(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requirePermission(ctx, req)
  const p = readParams(req, adminReportsParams)
  const page = readPage(p, ADMIN_REPORTS_LIMIT)
  const query = ctx.db('reports').select('reports.*')
  if (p.resolved) query.whereNotNull('reports.action_taken_at')
  else query.whereNull('reports.action_taken_at')
  if (p.account_id !== undefined) query.where('reports.account_id', parseId(p.account_id) ?? '0')
  if (p.target_account_id !== undefined)
    query.where('reports.target_account_id', parseId(p.target_account_id) ?? '0')
  const rows = await paginate<ReportRow>(query, 'reports.id', page)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-full',
    prev: 'min_id',
    kept: {
      limit: paramText(p.limit),
      resolved: paramText(req.query.resolved),
      account_id: p.account_id,
      target_account_id: p.target_account_id,
    },
  })
  res.json(await renderAdminReports(ctx, rows, account.id))
}

async function findReport(ctx: AccountsContext, id: unknown): Promise<ReportRow> {
  const reportId = parseId(id)
  const row: ReportRow | undefined = reportId
    ? await ctx.db('reports').where({ id: reportId }).first()
    : undefined
  if (!row) throw recordNotFound()
  return row
}

/** GET /api/v1/admin/reports/:id */
export async function showAdminReport(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requirePermission(ctx, req)
  const [rendered] = await renderAdminReports(ctx, [await findReport(ctx, req.params.id)], account.id)
  res.json(rendered)
}

/** The report actions: each changes the report, is logged (Mastodon's verbs) and answers the Admin::Report. */
function reportAction(action: string, change: (moderatorId: string) => Record<string, unknown>) {
  return async (ctx: AccountsContext, req: Request, res: Response) => {
    const { account } = await requirePermission(ctx, req)
    const report = await findReport(ctx, req.params.id)
    const row = await ctx.db.transaction(async (trx) => {
      const [updated] = await trx('reports')
        .where({ id: report.id })
        .update({ ...change(account.id), updated_at: trx.fn.now() })
        .returning('*')
      await logReportAction(trx, account.id, action, updated as ReportRow)
      return updated as ReportRow
    })
    const [rendered] = await renderAdminReports(ctx, [row], account.id)
    res.json(rendered)
  }
}

async function logReportAction(trx: Knex, moderatorId: string, action: string, report: ReportRow) {
  await logAction(trx, {
    accountId: moderatorId,
    action,
    targetType: 'Report',
    targetId: String(report.id),
    humanIdentifier: `#${report.id}`,
  })
  await adminEvent(trx, 'report.updated', String(report.id))
}

/** POST /api/v1/admin/reports/:id/assign_to_self */
export const assignReportToSelf = reportAction('assigned_to_self', (me) => ({ assigned_account_id: me }))
/** POST /api/v1/admin/reports/:id/unassign */
export const unassignReport = reportAction('unassigned', () => ({ assigned_account_id: null }))
/** POST /api/v1/admin/reports/:id/resolve — marks it handled, by this moderator. */
export const resolveReport = reportAction('resolve', (me) => ({
  action_taken_at: new Date(),
  action_taken_by_account_id: me,
}))
/** POST /api/v1/admin/reports/:id/reopen */
export const reopenReport = reportAction('reopen', () => ({
  action_taken_at: null,
  action_taken_by_account_id: null,
}))

/**
 * PUT /api/v1/admin/reports/:id — Mastodon's: changes the `category` and the rules cited (`rule_ids`, rules in
 * force, for a `violation`; another category cites none). Unknown rules are a 422.
 */
export async function updateAdminReport(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requirePermission(ctx, req)
  const report = await findReport(ctx, req.params.id)
  const p = readParams(req, adminUpdateReportParams)
  const changes: Record<string, unknown> = {}
  if (p.category !== undefined) changes.category = p.category
  const category = p.category ?? report.category
  if (p.rule_ids !== undefined) {
    const ids = [...new Set(p.rule_ids.filter((id) => id !== ''))]
    const known = (await activeRules(ctx.db)).map((r) => String(r.id))
    if (ids.some((id) => !known.includes(id)))
      throw unprocessable('Validation failed: Rule ids contains an unknown rule')
    changes.rule_ids = category === 'violation' ? ids : []
  } else if (category !== 'violation') changes.rule_ids = []
  const row = await ctx.db.transaction(async (trx) => {
    const [updated] = await trx('reports')
      .where({ id: report.id })
      .update({ ...changes, updated_at: trx.fn.now() })
      .returning('*')
    await logReportAction(trx, account.id, 'update', updated as ReportRow)
    return updated as ReportRow
  })
  const [rendered] = await renderAdminReports(ctx, [row], account.id)
  res.json(rendered)
}
