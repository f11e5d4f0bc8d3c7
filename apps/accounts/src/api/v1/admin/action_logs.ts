import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { adminActionLogParams, readParams } from '@roost/routes'
import { readPage, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../../context'
import type { AccountRow } from '../../../db/rows'
import { renderAccount, urlsOf } from '../../../entities/account'
import { accountsById } from '../../../queries/accounts'
import { requirePermission } from '../../../users/roles'

const DEFAULT_LIMIT = 40

interface ActionLogRow {
  id: string
  account_id: string | null
  action: string
  target_type: string
  target_id: string | null
  human_identifier: string | null
  details: Record<string, unknown> | null
  created_at: Date
}

/**
 * GET /api/v1/admin/action_logs — the audit log (a Roost addition: Mastodon shows its Admin::ActionLog on a web
 * page only; docs/moderation.md, "Audit log"), newest first, keyset pages with Link headers; filtered by who acted
 * (`account_id`), the verb (`action`) and the target (`target_type`, `target_id`).
 */
export async function listActionLogs(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const p = readParams(req, adminActionLogParams)
  const page = readPage(p, DEFAULT_LIMIT)
  const query = ctx.db('admin_action_logs')
  if (p.account_id !== undefined) {
    if (!/^\d{1,19}$/.test(p.account_id)) query.whereRaw('false')
    else query.where('account_id', p.account_id)
  }
  if (p.action !== undefined) query.where('action', p.action)
  if (p.target_type !== undefined) query.where('target_type', p.target_type)
  if (p.target_id !== undefined) query.where('target_id', p.target_id)
  const rows = await paginate<ActionLogRow>(query, 'id', page)
  const kept: Record<string, string> = {}
  for (const key of ['limit', 'account_id', 'action', 'target_type', 'target_id'] as const)
    if (p[key] !== undefined) kept[key] = String(p[key])
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-full',
    prev: 'min_id',
    kept,
    path: '/api/v1/admin/action_logs',
  })
  const accounts = await accountsById(
    ctx.db,
    rows.flatMap((r) => (r.account_id ? [String(r.account_id)] : [])),
  )
  const urls = urlsOf(ctx.config)
  res.json(
    rows.map((r) => {
      const account: AccountRow | undefined = r.account_id ? accounts.get(String(r.account_id)) : undefined
      return {
        id: String(r.id),
        action: r.action,
        target_type: r.target_type,
        target_id: r.target_id,
        human_identifier: r.human_identifier,
        details: r.details ?? {},
        created_at: new Date(r.created_at).toISOString(),
        account: account ? renderAccount(account, urls) : null,
      }
    }),
  )
}
