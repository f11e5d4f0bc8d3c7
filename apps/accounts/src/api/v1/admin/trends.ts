import type { Request, Response } from 'express'
import { readParams, trendsParams } from '@roost/routes'
import { readPage, recordNotFound } from '@roost/service'
import type { AccountsContext } from '../../../context'
import type { StatusRow, TagRow } from '../../../db/rows'
import { logAction } from '../../../domain/action_log'
import { trendingStatuses, trendingTags } from '../../../domain/discovery'
import { parseId } from '../../../domain/records'
import { urlsOf } from '../../../entities/account'
import { renderStatuses } from '../../../entities/status'
import { renderTags } from '../../../entities/tag'
import { requirePermission } from '../../../users/roles'

/**
 * The moderators' review of trends (docs/moderation.md, "Trends review"), as Mastodon's /api/v1/admin/trends/*:
 * what trends now, rejected items included; approving marks a tag or post trendable, rejecting keeps it out of the
 * public trends. Roost makes no preview cards, so there are no links to review.
 */

const page = (req: Request, defaultLimit: number) => {
  const p = readParams(req, trendsParams)
  const offset = Math.max(0, Number.parseInt(String(p.offset ?? '0'), 10) || 0)
  return { limit: readPage(p, defaultLimit).limit, offset }
}

/** Mastodon's Admin::Tag: the Tag with its moderation switches. */
async function renderAdminTags(ctx: AccountsContext, rows: TagRow[], viewerId: string) {
  const tags = await renderTags(ctx.db, urlsOf(ctx.config), rows, viewerId)
  return tags.map((t, i) => ({
    ...t,
    id: String(rows[i]!.id),
    trendable: rows[i]!.trendable === true,
    usable: rows[i]!.usable !== false,
    listable: rows[i]!.listable !== false,
    requires_review: rows[i]!.trendable === null,
  }))
}

/** GET /api/v1/admin/trends/tags */
export async function adminTrendTags(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const { limit, offset } = page(req, 10)
  res.json(await renderAdminTags(ctx, await trendingTags(ctx.db, limit, offset, true), staff.account.id))
}

/** GET /api/v1/admin/trends/statuses */
export async function adminTrendStatuses(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const { limit, offset } = page(req, 20)
  const rows = await trendingStatuses(ctx.db, limit, offset, undefined, true)
  res.json(await renderStatuses(ctx.db, urlsOf(ctx.config), rows, staff.account.id))
}

/** GET /api/v1/admin/trends/links — always empty: Roost makes no preview cards. */
export async function adminTrendLinks(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  page(req, 10)
  res.json([])
}

/** POST /api/v1/admin/trends/links/:id/approve|reject — there are no links: 404. */
export async function reviewTrendLink(ctx: AccountsContext, req: Request) {
  await requirePermission(ctx, req)
  throw recordNotFound()
}

function reviewTag(trendable: boolean) {
  return async (ctx: AccountsContext, req: Request, res: Response) => {
    const staff = await requirePermission(ctx, req)
    const id = parseId(req.params.id)
    const row: TagRow | undefined = id
      ? await ctx.db.transaction(async (trx) => {
          const [tag]: TagRow[] = await trx('tags').where({ id }).update({ trendable }).returning('*')
          if (tag)
            await logAction(trx, {
              accountId: staff.account.id,
              action: trendable ? 'approve' : 'reject',
              targetType: 'Tag',
              targetId: String(tag.id),
              humanIdentifier: tag.name,
            })
          return tag
        })
      : undefined
    if (!row) throw recordNotFound()
    res.json((await renderAdminTags(ctx, [row], staff.account.id))[0])
  }
}

function reviewStatus(trendable: boolean) {
  return async (ctx: AccountsContext, req: Request, res: Response) => {
    const staff = await requirePermission(ctx, req)
    const id = parseId(req.params.id)
    const row: StatusRow | undefined = id
      ? await ctx.db.transaction(async (trx) => {
          const [status]: StatusRow[] = await trx('statuses')
            .where({ id })
            .update({ trendable })
            .returning('*')
          if (status)
            await logAction(trx, {
              accountId: staff.account.id,
              action: trendable ? 'approve' : 'reject',
              targetType: 'Status',
              targetId: String(status.id),
              humanIdentifier: String(status.id),
            })
          return status
        })
      : undefined
    if (!row) throw recordNotFound()
    res.json((await renderStatuses(ctx.db, urlsOf(ctx.config), [row], staff.account.id))[0])
  }
}

export const approveTrendTag = reviewTag(true)
export const rejectTrendTag = reviewTag(false)
export const approveTrendStatus = reviewStatus(true)
export const rejectTrendStatus = reviewStatus(false)
