import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { readParams, tagTimelineParams } from '@roost/routes'
import { DEFAULT_STATUSES_LIMIT, linkHeader, readPage } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { hiddenAccounts, hideAccounts } from '../../../domain/relationships'
import { findTags } from '../../../domain/tags'
import { urlsOf } from '../../../entities/account'
import type { StatusRow } from '../../../entities/status'
import { renderStatuses } from '../../../entities/status'
import { withoutHidden } from '../../../domain/filters'
import { optionalUser } from '../../../users/current'

/** Mastodon's TagFeed::LIMIT_PER_MODE: `any`, `all` and `none` each count their first 4 names. */
const PER_MODE = 4

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
  const db = ctx.db
  const hashtag = typeof req.params.hashtag === 'string' ? req.params.hashtag : ''
  const idsOf = async (names: string[]) => (await findTags(db, names.slice(0, PER_MODE))).map((t) => t.id)
  // The hashtag counts among any[]'s four; names of all[] and none[] nobody used are ignored (Mastodon).
  const [known, anyIds, allIds, noneIds] = await Promise.all([
    findTags(db, [hashtag]),
    idsOf([hashtag, ...(p.any ?? [])]),
    idsOf(p.all ?? []),
    idsOf(p.none ?? []),
  ])
  const tagged = (ids: string[]) =>
    db('status_tags').whereRaw('status_tags.status_id = statuses.id').whereIn('status_tags.tag_id', ids)

  const query = db('statuses')
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .where('statuses.visibility', 'public')
    .whereNull('accounts.suspended_at')
    .whereNull('accounts.silenced_at')
    .whereExists(tagged(anyIds))
    .select('statuses.*')
  for (const id of allIds) query.whereExists(tagged([id]))
  if (noneIds.length) query.whereNotExists(tagged(noneIds))
  if (p.only_media)
    query.whereExists(db('media_attachments').whereRaw('media_attachments.status_id = statuses.id'))
  const viewerId = viewer?.account.id
  if (viewerId) hideAccounts(query, 'statuses.account_id', await hiddenAccounts(db, viewerId))
  // As the public timeline: `local` alone gives local posts, `remote` alone those of other servers.
  if (p.local && !p.remote) query.whereNull('accounts.domain')
  if (p.remote && !p.local) query.whereNotNull('accounts.domain')
  const nothing = !known.length
  const rows = nothing ? [] : await paginate<StatusRow>(query, 'statuses.id', page)

  const kept: Record<string, string | undefined> = {}
  for (const key of ['local', 'limit', 'only_media'])
    if (typeof req.query[key] === 'string') kept[key] = req.query[key] as string
  const link = linkHeader(ctx.config.PUBLIC_URL, req.path, kept, {
    next: rows.length ? { max_id: rows.at(-1)!.id } : undefined,
    prev: rows.length ? { min_id: rows[0]!.id } : undefined,
  })
  if (link) res.setHeader('Link', link)
  res.json(withoutHidden(await renderStatuses(db, urlsOf(ctx.config.PUBLIC_URL), rows, viewerId), 'public'))
}
