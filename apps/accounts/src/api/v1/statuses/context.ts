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
import type { StatusRow } from '../../../db/rows'
import * as outbox from '../../../outbox/outbox'
import {
  asyncRefreshHeader,
  contextRefreshId,
  createAsyncRefreshes,
} from '../../../federation/async-refreshes'

/**
 * GET /api/v1/statuses/:id/context — the thread around a status (Mastodon's Context entity). A signed-in reader
 * of a remote thread also starts the fetch of its replies (docs/federation.md, "Complete threads"), as Mastodon
 * 4.4 does, and is told of it by the `Mastodon-Async-Refresh` header while it runs.
 */
export async function statusContext(ctx: AccountsContext, req: Request, res: Response) {
  const viewerId = (await optionalUser(ctx, req))?.account.id
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), viewerId, notFound)
  const { ancestors, descendants } = await threadOf(ctx.db, status, viewerId)
  if (viewerId) await refreshThread(ctx, res, status, ancestors[0])
  // One render for both lists: the batched renderer costs the same queries for any number of rows.
  const rendered = await renderStatuses(ctx.db, urlsOf(ctx.config), [...ancestors, ...descendants], viewerId)
  res.json({
    ancestors: withoutHidden(rendered.slice(0, ancestors.length), 'thread'),
    descendants: withoutHidden(rendered.slice(ancestors.length), 'thread'),
  })
}

/**
 * The fetch of a remote thread's replies, from its root (the first ancestor, or the status itself), at most once
 * per REMOTE_REPLIES_COOLDOWN_MINUTES: the status is marked and the `fetch.replies` job written in one
 * transaction, so that readers opening it together start one fetch. A refresh running already is announced again.
 */
async function refreshThread(ctx: AccountsContext, res: Response, status: StatusRow, top?: StatusRow) {
  const cooldown = ctx.config.REMOTE_REPLIES_COOLDOWN_MINUTES
  if (!ctx.config.FEDERATION || cooldown <= 0) return
  const root = top?.uri ? top : status
  if (!root.uri) return
  const refreshes = createAsyncRefreshes(ctx.redis, ctx.config.REDIS_PREFIX)
  const id = contextRefreshId(status.id)
  const running = await refreshes.get(id)
  if (running?.status === 'running') {
    res.setHeader('Mastodon-Async-Refresh', asyncRefreshHeader(running))
    return
  }
  const started = await ctx.db.transaction(async (trx) => {
    const marked = await trx('statuses')
      .where({ id: root.id })
      .where((q) =>
        q
          .whereNull('replies_fetched_at')
          .orWhere('replies_fetched_at', '<', trx.raw(`now() - make_interval(mins => ?)`, [cooldown])),
      )
      .update({ replies_fetched_at: trx.fn.now() })
    if (!marked) return false
    await refreshes.start(id)
    await outbox.add(trx, { event: 'fetch.replies', statusId: root.id, refreshId: id })
    return true
  })
  if (started)
    res.setHeader('Mastodon-Async-Refresh', asyncRefreshHeader({ id, status: 'running', result_count: 0 }))
}
