import type { Request, Response } from 'express'
import type { AccountsContext } from '../../../context'
import {
  addReaction,
  currentAnnouncements,
  dismissAnnouncement,
  findAnnouncement,
  removeReaction,
} from '../../../domain/announcements'
import { renderAnnouncements } from '../../../entities/announcement'
import { urlsOf } from '../../../entities/account'
import { requireUser } from '../../../users/current'

/** GET /api/v1/announcements — the published announcements that have not ended, dismissed ones with `read: true`. */
export async function listAnnouncements(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const rows = await currentAnnouncements(ctx.db)
  res.json(await renderAnnouncements(ctx.db, urlsOf(ctx.config), rows, account.id))
}

/** POST /api/v1/announcements/:id/dismiss — marks it read; `{}`. */
export async function dismiss(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const announcement = await findAnnouncement(ctx.db, req.params.id)
  await dismissAnnouncement(ctx.db, account.id, announcement.id)
  res.json({})
}

/** PUT /api/v1/announcements/:id/reactions/:name — one Unicode emoji; `{}`. */
export async function react(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const announcement = await findAnnouncement(ctx.db, req.params.id)
  await ctx.db.transaction((trx) => addReaction(trx, account.id, announcement.id, String(req.params.name)))
  res.json({})
}

/** DELETE /api/v1/announcements/:id/reactions/:name — `{}`; 404 when the user had not reacted so. */
export async function unreact(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const announcement = await findAnnouncement(ctx.db, req.params.id)
  await ctx.db.transaction((trx) => removeReaction(trx, account.id, announcement.id, String(req.params.name)))
  res.json({})
}
