import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { accountStatusesParams, readParams } from '@roost/routes'
import { DEFAULT_STATUSES_LIMIT, linkHeader, paramText, readPage } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { blocks, hiddenAccounts, NOBODY_HIDDEN } from '../../../domain/relationships'
import { findAccount } from '../../../domain/records'
import { authorStatusesVisibleTo } from '../../../domain/statuses'
import type { StatusRow } from '../../../entities/status'
import { renderStatuses } from '../../../entities/status'
import { withoutHidden } from '../../../domain/filters'
import { optionalUser } from '../../../users/current'
import { normalizeTag } from '../../../text/hashtags'

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
  const flags = { ...p, only_media: onlyMediaRoute || p.only_media }
  const tagged = p.tagged
  const viewerId = viewer?.account.id
  const hidden = !!account.suspended_at || (!!viewerId && (await blocks(ctx.db, account.id, viewerId)))

  const query = ctx.db('statuses').where('statuses.account_id', account.id).select('statuses.*')
  // The author's suspension and blocks are known already (`hidden`): no per-row check of either.
  if (!hidden)
    await authorStatusesVisibleTo(
      ctx.db,
      query,
      account.id,
      viewerId,
      viewerId ? await hiddenAccounts(ctx.db, viewerId) : NOBODY_HIDDEN,
    )
  if (flags.exclude_direct) query.whereNot('statuses.visibility', 'direct')
  if (flags.pinned)
    query.whereExists(
      ctx
        .db('status_pins')
        .whereRaw('status_pins.status_id = statuses.id')
        .where('status_pins.account_id', account.id),
    )
  if (flags.only_media)
    query.whereExists(ctx.db('media_attachments').whereRaw('media_attachments.status_id = statuses.id'))
  // Replies to others go; a thread of one's own posts stays.
  if (flags.exclude_replies)
    query.where((q) =>
      q
        .whereNull('statuses.in_reply_to_id')
        .orWhereRaw('statuses.in_reply_to_account_id = statuses.account_id'),
    )
  if (flags.exclude_reblogs) query.whereNull('statuses.reblog_of_id')
  if (tagged !== undefined)
    query.whereExists(
      ctx
        .db('status_tags')
        .join('tags', 'tags.id', 'status_tags.tag_id')
        .whereRaw('status_tags.status_id = statuses.id')
        .where('tags.name', normalizeTag(tagged)),
    )
  const rows = hidden ? [] : await paginate<StatusRow>(query, 'statuses.id', page)

  const kept: Record<string, string | undefined> = {
    limit: paramText(p.limit),
  }
  // The media route's links point at itself, so only_media is implied there, not repeated.
  for (const key of KEPT)
    if (typeof req.query[key] === 'string' && !(onlyMediaRoute && key === 'only_media'))
      kept[key] = req.query[key] as string
  if (tagged !== undefined) kept.tagged = tagged
  const link = linkHeader(ctx.config.PUBLIC_URL, req.path, kept, {
    next: rows.length && rows.length === page.limit ? { max_id: rows.at(-1)!.id } : undefined,
    prev: rows.length ? { min_id: rows[0]!.id } : undefined,
  })
  if (link) res.setHeader('Link', link)
  res.json(
    withoutHidden(await renderStatuses(ctx.db, urlsOf(ctx.config.PUBLIC_URL), rows, viewerId), 'account'),
  )
}
