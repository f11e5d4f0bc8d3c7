import type { Request, Response } from 'express'
import { accountStatusesParams, readParams } from '@roost/routes'
import { DEFAULT_STATUSES_LIMIT, keptFromQuery, paramText, readPage, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { findAccount } from '../../../domain/records'
import { renderStatuses } from '../../../entities/status'
import { withoutHidden } from '../../../domain/filters'
import { statusesOfAccount } from '../../../feeds/timelines'
import { optionalUser } from '../../../users/current'
import { readsFor } from '../../../replica'
import { refreshStaleProfile } from '../../../federation/stale-profiles'

/** The filter keys Mastodon carries into the Link header, with the value the client sent. */
const KEPT = ['pinned', 'tagged', 'only_media', 'exclude_replies', 'exclude_reblogs'] as const

/**
 * GET /api/v1/accounts/:id/statuses (Mastodon's AccountStatusesFilter) and Roost's
 * GET /api/v1/accounts/:id/statuses/media, which is the same with only_media=true.
 */
export async function accountStatuses(ctx: AccountsContext, req: Request, res: Response) {
  const onlyMediaRoute = req.path.endsWith('/statuses/media')
  const viewer = await optionalUser(ctx, req)
  const account = await findAccount(ctx.db, req.params.id)
  const p = readParams(req, accountStatusesParams)
  const page = readPage(p, DEFAULT_STATUSES_LIMIT)
  const viewerId = viewer?.account.id
  // A remote profile not read for long is read again by the worker (docs/federation.md, "Backfill of remote
  // profiles"); this answer has what is stored.
  if (viewerId && ctx.config.FEDERATION && !p.max_id)
    await refreshStaleProfile(ctx.db, account, ctx.config.REMOTE_BACKFILL_STALE_HOURS)
  // A lag-tolerant read: the replica, but an account's own statuses read by itself come from the primary
  // (docs/operations.md, "Read replica").
  const db = viewerId === account.id ? ctx.db : await readsFor(ctx, viewerId)
  const rows = await statusesOfAccount(
    db,
    account,
    viewerId,
    {
      pinned: p.pinned,
      onlyMedia: onlyMediaRoute || p.only_media,
      excludeReplies: p.exclude_replies,
      excludeReblogs: p.exclude_reblogs,
      excludeDirect: p.exclude_direct,
      tagged: p.tagged,
    },
    page,
  )

  // The media route's links point at itself, so only_media is implied there, not repeated.
  const kept = keptFromQuery(
    req.query,
    KEPT.filter((key) => !(onlyMediaRoute && key === 'only_media')),
  )
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-full',
    prev: 'min_id',
    kept: { ...kept, limit: paramText(p.limit), tagged: p.tagged ?? kept.tagged },
  })
  res.json(withoutHidden(await renderStatuses(db, urlsOf(ctx.config), rows, viewerId), 'account'))
}
