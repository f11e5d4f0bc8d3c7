import type { Request, Response } from 'express'
import { publicTimelineParams, readParams } from '@roost/routes'
import { DEFAULT_STATUSES_LIMIT, keptFromQuery, readPage, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { renderStatuses } from '../../../entities/status'
import { publicStatuses } from '../../../feeds/timelines'
import { optionalUser } from '../../../users/current'
import { readsFor } from '../../../replica'
import { withoutHidden } from '../../../domain/filters'

/**
 * GET /api/v1/timelines/public — public posts (no boosts) by authors neither suspended nor silenced; a signed-in
 * viewer does not see authors they block or mute, or who block them. `local` gives local posts only, `remote`
 * only those of other servers (docs/federation.md). Link next `max_id` / prev `min_id` whenever the page is not empty.
 */
export async function publicTimeline(ctx: AccountsContext, req: Request, res: Response) {
  const viewer = await optionalUser(ctx, req)
  const p = readParams(req, publicTimelineParams)
  const page = readPage(p, DEFAULT_STATUSES_LIMIT)
  const viewerId = viewer?.account.id
  const filters = { local: p.local, remote: p.remote, onlyMedia: p.only_media }
  // A lag-tolerant read: the replica (docs/operations.md, "Read replica").
  const db = await readsFor(ctx, viewerId)
  const rows = await publicStatuses(db, viewerId, filters, page)

  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-not-empty',
    prev: 'min_id',
    kept: keptFromQuery(req.query, ['local', 'remote', 'limit', 'only_media']),
  })
  res.json(withoutHidden(await renderStatuses(db, urlsOf(ctx.config), rows, viewerId), 'public'))
}
