import type { Request, Response } from 'express'
import { readParams, searchParams } from '@roost/routes'
import { HttpError, readPage } from '@roost/service'
import type { AccountsContext } from '../../context'
import { renderAccount, urlsOf } from '../../entities/account'
import { renderStatuses } from '../../entities/status'
import type { StatusRow } from '../../db/rows'
import { renderTags } from '../../entities/tag'
import { parseId } from '../../domain/records'
import { searchHashtags, searchStatuses, statusByUrl } from '../../domain/search'
import { findVisibleStatus } from '../../domain/statuses'
import { resolveStatusUrl } from '../../federation/inbox/statuses'
import { optionalUser } from '../../users/current'
import { readsFor } from '../../replica'
import { readOffset, searchAccounts } from '../v1/accounts/search'

const SEARCH_LIMIT = 20
const TYPES = new Set(['accounts', 'statuses', 'hashtags'])

/**
 * Runs a search (docs/discovery.md, "Search"): accounts by name prefix, hashtags by name prefix, and for a
 * signed-in user statuses by full text (or the status a URL of this server names). `limit` applies to each
 * category; `offset` only when `type` names one, as Mastodon's.
 */
async function search(ctx: AccountsContext, req: Request) {
  const p = readParams(req, searchParams)
  const requestedOffset = readOffset(p.offset)
  const viewer = await optionalUser(ctx, req)
  // Mastodon: paging search results needs a signed-in user (401, its own text).
  if (requestedOffset > 0 && !viewer)
    throw new HttpError(401, 'Search queries pagination is not supported without authentication')
  if (p.resolve && !viewer)
    throw new HttpError(
      401,
      'Search queries that resolve remote resources are not supported without authentication',
    )
  const type = typeof p.type === 'string' && TYPES.has(p.type) ? p.type : undefined
  const offset = type ? requestedOffset : 0
  const page = readPage(p, SEARCH_LIMIT)
  const wants = (category: string) => !type || type === category
  const urls = urlsOf(ctx.config)
  const viewerId = viewer?.account.id
  // A lag-tolerant read: the replica, but for what may fetch and store a remote account or status (docs/operations.md,
  // "Read replica").
  const db = await readsFor(ctx, viewerId)

  const accounts = wants('accounts')
    ? await searchAccounts(
        p.resolve ? ctx : { ...ctx, db },
        p.q,
        page.limit,
        offset,
        p.following && viewerId ? viewerId : undefined,
        !!p.resolve,
      )
    : []

  let statuses: StatusRow[] = []
  if (wants('statuses') && viewer) {
    if (/^https?:\/\//i.test(p.q.trim())) {
      const url = p.q.trim()
      const found =
        offset === 0
          ? ((await statusByUrl(ctx.db, ctx.config.PUBLIC_URL, url, viewer.account.id)) ??
            (await remoteStatusByUrl(ctx, url, !!p.resolve, viewer.account.id)))
          : undefined
      statuses = found ? [found] : []
    } else {
      const accountId = p.account_id === undefined ? undefined : (parseId(p.account_id) ?? '0')
      statuses = await searchStatuses(db, {
        q: p.q,
        viewerId: viewer.account.id,
        language: viewer.user.locale ?? 'en',
        limit: page.limit,
        offset,
        accountId,
        minId: page.minId,
        maxId: page.maxId,
      })
    }
  }

  const hashtags = wants('hashtags') ? await searchHashtags(db, p.q, page.limit, offset) : []
  return {
    accounts: accounts.map((row) => renderAccount(row, urls)),
    statuses: await renderStatuses(db, urls, statuses, viewerId),
    hashtags,
    viewerId,
  }
}

/**
 * A status of another server by its URI or the URL of its page, when the viewer may read it: one known here, or
 * with `resolve` one fetched from its server (docs/federation.md, "Incoming statuses"), as Mastodon's
 * ResolveURLService.
 */
async function remoteStatusByUrl(ctx: AccountsContext, url: string, resolve: boolean, viewerId: string) {
  const row: StatusRow | undefined = resolve
    ? await resolveStatusUrl(ctx.federation, url)
    : await ctx
        .db('statuses')
        .whereNotNull('uri')
        .where((q) => q.where({ uri: url }).orWhere({ url }))
        .first()
  return row ? findVisibleStatus(ctx.db, row.id, viewerId).catch(() => undefined) : undefined
}

/** GET /api/v2/search?q=&type= — Mastodon's Search entity: `hashtags` are Tag entities. */
export async function searchRoute(ctx: AccountsContext, req: Request, res: Response) {
  const { accounts, statuses, hashtags, viewerId } = await search(ctx, req)
  res.json({
    accounts,
    statuses,
    hashtags: await renderTags(ctx.db, urlsOf(ctx.config), hashtags, viewerId),
  })
}

/** GET /api/v1/search — the old shape: `hashtags` are names. */
export async function searchRouteV1(ctx: AccountsContext, req: Request, res: Response) {
  const { accounts, statuses, hashtags } = await search(ctx, req)
  res.json({ accounts, statuses, hashtags: hashtags.map((t) => t.display_name) })
}
