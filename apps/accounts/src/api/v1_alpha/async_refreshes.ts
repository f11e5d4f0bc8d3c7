import type { Request, Response } from 'express'
import { recordNotFound } from '@roost/service'
import type { AccountsContext } from '../../context'
import { requireUser } from '../../users/current'
import { createAsyncRefreshes } from '../../federation/async-refreshes'

/**
 * GET /api/v1_alpha/async_refreshes/:id — Mastodon 4.4's AsyncRefresh entity (docs/federation.md, "Complete
 * threads"): `{"async_refresh": {"id", "status": "running"|"finished", "result_count"}}`; 404 once it has expired
 * or for an id never given.
 */
export async function showAsyncRefresh(ctx: AccountsContext, req: Request, res: Response) {
  await requireUser(ctx, req)
  const refresh = await createAsyncRefreshes(ctx.redis, ctx.config.REDIS_PREFIX).get(String(req.params.id))
  if (!refresh) throw recordNotFound()
  res.json({ async_refresh: refresh })
}
