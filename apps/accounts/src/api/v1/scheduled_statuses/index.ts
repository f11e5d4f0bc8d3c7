import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { pageParams, readParams, updateScheduledStatusParams } from '@roost/routes'
import {
  DEFAULT_STATUSES_LIMIT,
  paramText,
  readPage,
  recordNotFound,
  setPageLinks,
  unprocessable,
} from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { parseId } from '../../../domain/records'
import type { ScheduledStatusRow } from '../../../db/rows'
import { parseScheduledAt, reschedule } from '../../../domain/scheduled_statuses'
import { renderScheduledStatus, renderScheduledStatuses } from '../../../entities/scheduled_status'
import { requireUser } from '../../../users/current'

/** One of the user's own scheduled statuses, else 404 "Record not found". */
async function own(ctx: AccountsContext, req: Request) {
  const { account } = await requireUser(ctx, req)
  const id = parseId(req.params.id)
  const row: ScheduledStatusRow | undefined = id
    ? await ctx.db('scheduled_statuses').where({ id, account_id: account.id }).first()
    : undefined
  if (!row) throw recordNotFound()
  return row
}

/**
 * GET /api/v1/scheduled_statuses — the user's scheduled statuses, newest first by id (Mastodon's Paginable); Link
 * next `max_id` when the page is full, prev `min_id` when it is not empty.
 */
export async function listScheduledStatuses(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, pageParams)
  const page = readPage(p, DEFAULT_STATUSES_LIMIT)
  const rows = await paginate<ScheduledStatusRow>(
    ctx.db('scheduled_statuses').where({ account_id: account.id }),
    'id',
    page,
  )
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-full',
    prev: 'min_id',
    kept: { limit: paramText(p.limit) },
  })
  res.json(await renderScheduledStatuses(ctx.db, urlsOf(ctx.config), rows))
}

/** GET /api/v1/scheduled_statuses/:id */
export async function showScheduledStatus(ctx: AccountsContext, req: Request, res: Response) {
  res.json(await renderScheduledStatus(ctx.db, urlsOf(ctx.config), await own(ctx, req)))
}

/**
 * PUT /api/v1/scheduled_statuses/:id — a new `scheduled_at`, checked as on creation (5 minutes ahead, the limits);
 * a date that cannot be read is 422 "Record invalid", and without one nothing changes.
 */
export async function updateScheduledStatus(ctx: AccountsContext, req: Request, res: Response) {
  const row = await own(ctx, req)
  const { scheduled_at } = readParams(req, updateScheduledStatusParams)
  let updated = row
  if (scheduled_at !== undefined) {
    const at = parseScheduledAt(scheduled_at)
    if (!at) throw unprocessable('Record invalid')
    updated = await ctx.db.transaction(async (trx) => {
      // Published or deleted meanwhile: gone.
      const current = await trx('scheduled_statuses').where({ id: row.id }).forUpdate().first()
      if (!current) throw recordNotFound()
      return reschedule(trx, current, at, ctx.config.SCHEDULED_STATUS_MIN_OFFSET_SECONDS)
    })
  }
  res.json(await renderScheduledStatus(ctx.db, urlsOf(ctx.config), updated))
}

/** DELETE /api/v1/scheduled_statuses/:id — `{}`; its uploads go back to being unattached. */
export async function deleteScheduledStatus(ctx: AccountsContext, req: Request, res: Response) {
  const row = await own(ctx, req)
  await ctx.db('scheduled_statuses').where({ id: row.id }).delete()
  res.json({})
}
