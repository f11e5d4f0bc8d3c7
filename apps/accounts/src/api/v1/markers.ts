import type { Request, Response } from 'express'
import { getMarkersParams, readParams, saveMarkersParams } from '@roost/routes'
import type { AccountsContext } from '../../context'
import { markersOf, renderMarkers, saveMarkers } from '../../domain/markers'
import { requireUser } from '../../users/current'

/** GET /api/v1/markers — `{home?, notifications?}`: timelines without a marker (or not asked for) are left out. */
export async function getMarkers(ctx: AccountsContext, req: Request, res: Response) {
  const { user } = await requireUser(ctx, req)
  const { timeline } = readParams(req, getMarkersParams)
  res.json(renderMarkers(await markersOf(ctx.db, user.id, timeline ?? [])))
}

/** POST /api/v1/markers — `home[last_read_id]`, `notifications[last_read_id]`; 409 when a save raced another. */
export async function postMarkers(ctx: AccountsContext, req: Request, res: Response) {
  const { user } = await requireUser(ctx, req)
  const p = readParams(req, saveMarkersParams)
  const positions = Object.fromEntries(
    (['home', 'notifications'] as const).flatMap((t) => (p[t] ? [[t, p[t].last_read_id]] : [])),
  )
  const saved = await ctx.db.transaction((trx) => saveMarkers(trx, user.id, positions))
  res.json(renderMarkers(saved))
}
