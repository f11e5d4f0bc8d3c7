import type { Request, Response } from 'express'
import { notFound } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { parseId } from '../../../domain/records'
import { findVisibleStatus } from '../../../domain/statuses'
import { threadOf } from '../../../domain/threads'
import { renderStatuses } from '../../../entities/status'
import { withoutHidden } from '../../../domain/filters'
import { optionalUser } from '../../../users/current'

/** GET /api/v1/statuses/:id/context — the thread around a status (Mastodon's Context entity). */
export async function statusContext(ctx: AccountsContext, req: Request, res: Response) {
  const viewerId = (await optionalUser(ctx, req))?.account.id
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), viewerId, notFound)
  const { ancestors, descendants } = await threadOf(ctx.db, status, viewerId)
  // One render for both lists: the batched renderer costs the same queries for any number of rows.
  const rendered = await renderStatuses(ctx.db, urlsOf(ctx.config), [...ancestors, ...descendants], viewerId)
  res.json({
    ancestors: withoutHidden(rendered.slice(0, ancestors.length), 'thread'),
    descendants: withoutHidden(rendered.slice(ancestors.length), 'thread'),
  })
}
