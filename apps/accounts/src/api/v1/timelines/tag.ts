import type { Request, Response } from 'express'
import { readParams, tagTimelineParams } from '@roost/routes'
import { DEFAULT_STATUSES_LIMIT, keptFromQuery, readPage, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { renderStatuses } from '../../../entities/status'
import { withoutHidden } from '../../../domain/filters'
import { taggedStatuses } from '../../../feeds/timelines'
import { optionalUser } from '../../../users/current'
import { readsFor } from '../../../replica'

/**
 * GET /api/v1/timelines/tag/:hashtag (docs/hashtags.md) — public statuses tagged with the hashtag or any of
 * `any[]`, with every tag of `all[]` and none of `none[]` (names in any spelling); replies included; authors
 * neither suspended nor silenced; a signed-in viewer does not see authors they block or mute, or who block them.
 * An unknown hashtag gives `[]`; unknown names in `all[]` and `none[]` are ignored. `local`, `only_media` and `limit` are kept in the Link header.
 */
export async function tagTimeline(ctx: AccountsContext, req: Request, res: Response) {
  const viewer = await optionalUser(ctx, req)
  const p = readParams(req, tagTimelineParams)
  const page = readPage(p, DEFAULT_STATUSES_LIMIT)
  const hashtag = typeof req.params.hashtag === 'string' ? req.params.hashtag : ''
  const viewerId = viewer?.account.id
  const filters = {
    any: p.any,
    all: p.all,
    none: p.none,
    local: p.local,
    remote: p.remote,
    onlyMedia: p.only_media,
  }
  // A lag-tolerant read: the replica (docs/operations.md, "Read replica").
  const db = await readsFor(ctx, viewerId)
  const rows = await taggedStatuses(db, viewerId, hashtag, filters, page)

  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-not-empty',
    prev: 'min_id',
    kept: keptFromQuery(req.query, ['local', 'limit', 'only_media']),
  })
  res.json(withoutHidden(await renderStatuses(db, urlsOf(ctx.config), rows, viewerId), 'public'))
}
