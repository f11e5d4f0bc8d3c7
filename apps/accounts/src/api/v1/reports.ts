import type { Request, Response } from 'express'
import { readParams, reportParams } from '@roost/routes'
import type { AccountsContext } from '../../context'
import { findAccount } from '../../domain/records'
import { createReport } from '../../domain/reports'
import { urlsOf } from '../../entities/account'
import { renderReports } from '../../entities/report'
import { requireUser } from '../../users/current'

/**
 * POST /api/v1/reports — `account_id`, `status_ids[]`, `comment` (≤ 1000), `category`, `rule_ids[]`, `forward`
 * and `forward_to_domains[]` (a report on a remote account goes on to its server: docs/federation.md); the Report.
 */
export async function postReport(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, reportParams)
  const target = await findAccount(ctx.db, p.account_id)
  const row = await ctx.db.transaction((trx) =>
    createReport(trx, account.id, target.id, {
      statusIds: p.status_ids,
      ruleIds: p.rule_ids,
      comment: p.comment,
      category: p.category,
      forward: p.forward,
      forwardToDomains: p.forward_to_domains,
    }),
  )
  const [report] = await renderReports(ctx.db, urlsOf(ctx.config), [row])
  res.json(report)
}
