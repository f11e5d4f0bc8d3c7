import type { Request, Response } from 'express'
import {
  directoryParams,
  featuredTagParams,
  readParams,
  suggestionsParams,
  trendsParams,
} from '@roost/routes'
import { DEFAULT_ACCOUNTS_LIMIT, paramText, readPage, recordNotFound, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../context'
import type { Urls } from '../../entities/account'
import { renderAccount, urlsOf } from '../../entities/account'
import { renderStatuses } from '../../entities/status'
import { renderTags } from '../../entities/tag'
import {
  directory,
  dismissSuggestion,
  featuredTagsOf,
  featureTag,
  recentlyUsedTags,
  suggestions,
  trendingStatuses,
  trendingTags,
  unfeatureTag,
} from '../../domain/discovery'
import type { FeaturedTagRow } from '../../db/rows'
import { findVisibleAccount, parseId } from '../../domain/records'
import { optionalUser, requireUser } from '../../users/current'
import { readsFor } from '../../replica'
import { readOffset } from './accounts/search'
import { tagNamed } from './tags'

/** Trends, suggestions, the directory and featured tags (docs/discovery.md). */

/** A trends page's limit and offset: trends page by offset, not by id. */
function trendsPage(req: Request, defaultLimit: number) {
  const p = readParams(req, trendsParams)
  return { limit: readPage(p, defaultLimit).limit, offset: readOffset(p.offset) }
}

/** GET /api/v1/trends/tags (and /api/v1/trends) — Tag entities, limit 10/20, offset. */
export async function trendTags(ctx: AccountsContext, req: Request, res: Response) {
  const viewer = await optionalUser(ctx, req)
  const { limit, offset } = trendsPage(req, 10)
  // A lag-tolerant read: the replica (docs/operations.md, "Read replica").
  const db = await readsFor(ctx, viewer?.account.id)
  const rows = await trendingTags(db, limit, offset)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit,
    offset,
    next: 'when-full',
    kept: { limit: paramText(req.query.limit) },
  })
  res.json(await renderTags(db, urlsOf(ctx.config), rows, viewer?.account.id))
}

/** GET /api/v1/trends/statuses — Status entities, limit 20/40, offset. */
export async function trendStatuses(ctx: AccountsContext, req: Request, res: Response) {
  const viewerId = (await optionalUser(ctx, req))?.account.id
  const { limit, offset } = trendsPage(req, 20)
  // A lag-tolerant read: the replica (docs/operations.md, "Read replica").
  const db = await readsFor(ctx, viewerId)
  const rows = await trendingStatuses(db, limit, offset, viewerId)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit,
    offset,
    next: 'when-full',
    kept: { limit: paramText(req.query.limit) },
  })
  res.json(await renderStatuses(db, urlsOf(ctx.config), rows, viewerId))
}

/** GET /api/v1/trends/links — always empty: Roost makes no preview cards. */
export async function trendLinks(ctx: AccountsContext, req: Request, res: Response) {
  const { limit, offset } = trendsPage(req, 10)
  // No next page ever; a prev one past the first, as Mastodon links any offset page.
  setPageLinks(req, res, ctx.config.PUBLIC_URL, [], {
    limit,
    offset,
    next: 'when-full',
    kept: { limit: paramText(req.query.limit) },
  })
  res.json([])
}

/** GET /api/v2/suggestions — `[{source, sources, account}]`, limit 40/80. */
export async function suggestionsV2(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const { limit } = readPage(readParams(req, suggestionsParams), DEFAULT_ACCOUNTS_LIMIT)
  const urls = urlsOf(ctx.config)
  res.json(
    (await suggestions(ctx.db, account.id, limit)).map((s) => ({
      source: s.source,
      sources: s.sources,
      account: renderAccount(s.account, urls),
    })),
  )
}

/** GET /api/v1/suggestions — the same accounts, as Account entities. */
export async function suggestionsV1(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const { limit } = readPage(readParams(req, suggestionsParams), DEFAULT_ACCOUNTS_LIMIT)
  const urls = urlsOf(ctx.config)
  res.json((await suggestions(ctx.db, account.id, limit)).map((s) => renderAccount(s.account, urls)))
}

/** DELETE /api/v1/suggestions/:id — never suggest that account again; `{}`. */
export async function deleteSuggestion(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const target = await findVisibleAccount(ctx.db, req.params.id)
  if (!target) throw recordNotFound()
  await dismissSuggestion(ctx.db, account.id, target.id)
  res.json({})
}

/** GET /api/v1/directory — `order` active (default) or new, `local`, `offset`, limit 40/80. */
export async function directoryRoute(ctx: AccountsContext, req: Request, res: Response) {
  const viewer = await optionalUser(ctx, req)
  const p = readParams(req, directoryParams)
  // A lag-tolerant read: the replica (docs/operations.md, "Read replica").
  const rows = await directory(await readsFor(ctx, viewer?.account.id), {
    order: p.order === 'new' ? 'new' : 'active',
    local: !!p.local,
    limit: readPage(p, DEFAULT_ACCOUNTS_LIMIT).limit,
    offset: readOffset(p.offset),
    viewerId: viewer?.account.id,
  })
  const urls = urlsOf(ctx.config)
  res.json(rows.map((r) => renderAccount(r, urls)))
}

/** Mastodon's FeaturedTag entity; `statuses_count` is a string, `last_status_at` a day. */
function renderFeaturedTag(row: FeaturedTagRow, username: string, urls: Urls) {
  return {
    id: String(row.id),
    name: row.display_name,
    url: `${urls.base}/@${username}/tagged/${encodeURIComponent(row.name)}`,
    statuses_count: String(row.statuses_count),
    last_status_at: row.last_status_at ? new Date(row.last_status_at).toISOString().slice(0, 10) : null,
  }
}

/** GET /api/v1/featured_tags — the user's, most used first. */
export async function listFeaturedTags(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const urls = urlsOf(ctx.config)
  res.json(
    (await featuredTagsOf(ctx.db, account.id)).map((r) => renderFeaturedTag(r, account.username, urls)),
  )
}

/** POST /api/v1/featured_tags — `name`; the FeaturedTag. */
export async function createFeaturedTag(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const { name } = readParams(req, featuredTagParams)
  const tag = await ctx.db.transaction((trx) => featureTag(trx, account.id, name))
  const row = (await featuredTagsOf(ctx.db, account.id)).find((r) => String(r.tag_id) === String(tag.id))!
  res.json(renderFeaturedTag(row, account.username, urlsOf(ctx.config)))
}

/** DELETE /api/v1/featured_tags/:id — `{}`. */
export async function deleteFeaturedTag(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  await unfeatureTag(ctx.db, account.id, parseId(req.params.id))
  res.json({})
}

/** GET /api/v1/featured_tags/suggestions — up to 10 tags the user used lately and does not feature. */
export async function featuredTagSuggestions(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  res.json(
    await renderTags(ctx.db, urlsOf(ctx.config), await recentlyUsedTags(ctx.db, account.id), account.id),
  )
}

/** GET /api/v1/accounts/:id/featured_tags — anyone's (token optional); none for a suspended account. */
export async function accountFeaturedTags(ctx: AccountsContext, req: Request, res: Response) {
  await optionalUser(ctx, req)
  const target = await findVisibleAccount(ctx.db, req.params.id)
  if (!target) throw recordNotFound()
  if (target.suspended_at) return void res.json([])
  const urls = urlsOf(ctx.config)
  res.json((await featuredTagsOf(ctx.db, target.id)).map((r) => renderFeaturedTag(r, target.username, urls)))
}

/** POST /api/v1/tags/:id/feature — features the tag; the Tag (featuring true). */
export async function featureTagRoute(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const named = await tagNamed(ctx, String(req.params.id))
  const already = named.id
    ? await ctx.db('featured_tags').where({ account_id: account.id, tag_id: named.id }).first('id')
    : undefined
  const tag = already
    ? named
    : await ctx.db.transaction((trx) => featureTag(trx, account.id, named.display_name))
  const [rendered] = await renderTags(ctx.db, urlsOf(ctx.config), [tag as never], account.id)
  res.json(rendered)
}

/** POST /api/v1/tags/:id/unfeature — the Tag (featuring false); idempotent. */
export async function unfeatureTagRoute(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const tag = await tagNamed(ctx, String(req.params.id))
  if (tag.id) await ctx.db('featured_tags').where({ account_id: account.id, tag_id: tag.id }).delete()
  const [rendered] = await renderTags(ctx.db, urlsOf(ctx.config), [tag], account.id)
  res.json(rendered)
}
