import type { Request, Response } from 'express'
import { readParams, trendsParams } from '@roost/routes'
import { paramText, readPage, recordNotFound, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../../context'
import type { StatusRow, TagRow } from '../../../db/rows'
import { logAction } from '../../../domain/action_log'
import { trendingStatuses, trendingTags } from '../../../domain/discovery'
import { parseId } from '../../../domain/records'
import { urlsOf } from '../../../entities/account'
import { renderStatuses } from '../../../entities/status'
import { renderTags } from '../../../entities/tag'
import { requirePermission } from '../../../users/roles'
import { readOffset } from '../accounts/search'

/**
 * The moderators' review of trends (docs/moderation.md, "Trends review"), as Mastodon's /api/v1/admin/trends/*:
 * what trends now, rejected items included; approving marks a tag or post trendable, rejecting keeps it out of the
 * public trends. Roost makes no preview cards, so there are no links to review.
 */

const page = (req: Request, defaultLimit: number) => {
  const p = readParams(req, trendsParams)
  return { limit: readPage(p, defaultLimit).limit, offset: readOffset(p.offset) }
}

/**
 * Mastodon's trends Link header (next at `offset + limit` after a full page, prev while `offset > limit`, keeping
 * `limit`). Mastodon's admin controllers inherit the public ones' links, which point at the public trends; these
 * point at the admin path itself, so that following them keeps the rejected and unreviewed items.
 */
const setTrendLinks = (
  ctx: AccountsContext,
  req: Request,
  res: Response,
  rows: readonly unknown[],
  paging: { limit: number; offset: number },
) =>
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    ...paging,
    next: 'when-full',
    kept: { limit: paramText(req.query.limit) },
  })

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
  const paging = page(req, 10)
  const rows = await trendingTags(ctx.db, paging.limit, paging.offset, true)
  setTrendLinks(ctx, req, res, rows, paging)
  res.json(await renderAdminTags(ctx, rows, staff.account.id))
}

/** GET /api/v1/admin/trends/statuses */
export async function adminTrendStatuses(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const paging = page(req, 20)
  const rows = await trendingStatuses(ctx.db, paging.limit, paging.offset, undefined, true)
  setTrendLinks(ctx, req, res, rows, paging)
  res.json(await renderStatuses(ctx.db, urlsOf(ctx.config), rows, staff.account.id))
}

/** GET /api/v1/admin/trends/links — always empty: Roost makes no preview cards. */
export async function adminTrendLinks(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  setTrendLinks(ctx, req, res, [], page(req, 10))
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
