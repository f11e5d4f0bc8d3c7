import type { Request, Response } from 'express'
import { adminInstancesParams, readParams } from '@roost/routes'
import { paramText, readPage, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { requirePermission } from '../../../users/roles'
import { readOffset } from '../accounts/search'

/** Servers in one page unless `limit` says otherwise (at most twice as many). */
const INSTANCES_LIMIT = 100

interface InstanceRow {
  domain: string
  accounts_count: string
  failure_days: string[] | null
  unavailable_since: Date | null
  severity: string | null
}

/**
 * GET /api/v1/admin/instances — a Roost addition (Mastodon has its Admin::Instances pages but no API for them;
 * docs/federation.md, "Delivery health"): each server known by its accounts or by failed deliveries, with how many
 * of its accounts are known, the days on which deliveries to it ran out of attempts, since when it is treated as
 * unavailable (nothing more is sent), and the severity of a domain block on exactly that domain; sorted by domain,
 * in offset pages with Link headers as the trends (limit 100/200).
 */
export async function listAdminInstances(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const p = readParams(req, adminInstancesParams)
  const paging = { limit: readPage(p, INSTANCES_LIMIT).limit, offset: readOffset(p.offset) }
  const { rows } = await ctx.db.raw<{ rows: InstanceRow[] }>(
    `WITH known AS (
       SELECT domain, count(*) AS accounts_count FROM accounts WHERE domain IS NOT NULL GROUP BY domain
       UNION ALL SELECT domain, 0 FROM delivery_failures)
     SELECT k.domain, sum(k.accounts_count)::bigint AS accounts_count,
       (SELECT to_json(f.failure_days)::jsonb FROM delivery_failures f WHERE f.domain = k.domain) AS failure_days,
       (SELECT f.unavailable_since FROM delivery_failures f WHERE f.domain = k.domain) AS unavailable_since,
       (SELECT b.severity FROM domain_blocks b WHERE b.domain = k.domain) AS severity
     FROM known k GROUP BY k.domain ORDER BY k.domain LIMIT ? OFFSET ?`,
    [paging.limit, paging.offset],
  )
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    ...paging,
    next: 'when-full',
    kept: { limit: paramText(req.query.limit) },
  })
  res.json(
    rows.map((row) => ({
      domain: row.domain,
      accounts_count: Number(row.accounts_count),
      delivery_failures: row.failure_days?.length ?? 0,
      failure_days: row.failure_days ?? [],
      unavailable_since: row.unavailable_since ? new Date(row.unavailable_since).toISOString() : null,
      domain_block: row.severity,
    })),
  )
}
