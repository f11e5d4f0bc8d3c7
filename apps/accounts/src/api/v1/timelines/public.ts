import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { publicTimelineParams, readParams } from '@roost/routes'
import { DEFAULT_STATUSES_LIMIT, linkHeader, readPage } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { hiddenAccounts, hideAccounts } from '../../../domain/relationships'
import type { StatusRow } from '../../../entities/status'
import { renderStatuses } from '../../../entities/status'
import { optionalUser } from '../../../users/current'
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
  const { local, remote, only_media: onlyMedia } = p
  const db = ctx.db
  const query = db('statuses')
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .where('statuses.visibility', 'public')
    .whereNull('statuses.reblog_of_id')
    .whereNull('accounts.suspended_at')
    .whereNull('accounts.silenced_at')
    .select('statuses.*')
  if (onlyMedia)
    query.whereExists(db('media_attachments').whereRaw('media_attachments.status_id = statuses.id'))
  const viewerId = viewer?.account.id
  if (viewerId) hideAccounts(query, 'statuses.account_id', await hiddenAccounts(db, viewerId))
  // Mastodon's PublicFeed: `local` alone gives local posts, `remote` alone those of other servers. A local status
  // is one without a `uri`, and each kind has an index of its own (docs/performance.md, "Queries").
  if (local && !remote) query.whereNull('statuses.uri')
  if (remote && !local) query.whereNotNull('statuses.uri')
  const rows = await paginate<StatusRow>(query, 'statuses.id', page)

  const kept: Record<string, string | undefined> = {}
  for (const key of ['local', 'remote', 'limit', 'only_media'])
    if (typeof req.query[key] === 'string') kept[key] = req.query[key] as string
  const link = linkHeader(ctx.config.PUBLIC_URL, req.path, kept, {
    next: rows.length ? { max_id: rows.at(-1)!.id } : undefined,
    prev: rows.length ? { min_id: rows[0]!.id } : undefined,
  })
  if (link) res.setHeader('Link', link)
  res.json(
    withoutHidden(await renderStatuses(ctx.db, urlsOf(ctx.config.PUBLIC_URL), rows, viewerId), 'public'),
  )
}
