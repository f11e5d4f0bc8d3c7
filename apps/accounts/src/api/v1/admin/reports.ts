import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { adminReportsParams, readParams } from '@roost/routes'
import { paramText, readPage, recordNotFound, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { parseId } from '../../../domain/records'
import type { AdminAccountRow, ReportRow, RuleRow, StatusRow } from '../../../db/rows'
import { renderRule } from '../../../domain/rules'
import { urlsOf } from '../../../entities/account'
import { reportBasics } from '../../../entities/report'
import { renderStatuses } from '../../../entities/status'
import { requireStaff } from '../../../users/current'
import { adminAccounts, renderAdminAccount } from './accounts'

/** The moderators' side of reports (docs/discovery.md, "Reports"): moderators and admins only. */

const ADMIN_REPORTS_LIMIT = 100

/** Mastodon's Admin::Report for a batch of reports, as `viewerId` (a moderator) sees them. */
async function renderAdminReports(ctx: AccountsContext, rows: ReportRow[], viewerId: string) {
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
  const { account } = await requireStaff(ctx, req)
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
  const { account } = await requireStaff(ctx, req)
  const [rendered] = await renderAdminReports(ctx, [await findReport(ctx, req.params.id)], account.id)
  res.json(rendered)
}

/** The report actions: each changes the report and answers the Admin::Report. */
function reportAction(change: (moderatorId: string) => Record<string, unknown>) {
  return async (ctx: AccountsContext, req: Request, res: Response) => {
    const { account } = await requireStaff(ctx, req)
    const report = await findReport(ctx, req.params.id)
    const [row] = await ctx
      .db('reports')
      .where({ id: report.id })
      .update({ ...change(account.id), updated_at: ctx.db.fn.now() })
      .returning('*')
    const [rendered] = await renderAdminReports(ctx, [row as ReportRow], account.id)
    res.json(rendered)
  }
}

/** POST /api/v1/admin/reports/:id/assign_to_self */
export const assignReportToSelf = reportAction((me) => ({ assigned_account_id: me }))
/** POST /api/v1/admin/reports/:id/unassign */
export const unassignReport = reportAction(() => ({ assigned_account_id: null }))
/** POST /api/v1/admin/reports/:id/resolve — marks it handled, by this moderator. */
export const resolveReport = reportAction((me) => ({
  action_taken_at: new Date(),
  action_taken_by_account_id: me,
}))
/** POST /api/v1/admin/reports/:id/reopen */
export const reopenReport = reportAction(() => ({ action_taken_at: null, action_taken_by_account_id: null }))
