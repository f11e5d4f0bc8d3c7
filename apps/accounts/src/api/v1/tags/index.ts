import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { followedTagsParams, readParams } from '@roost/routes'
import { keptFromQuery, notFound, readPage, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../../context'
import type { TagRow } from '../../../db/rows'
import { findTags, followTag, unfollowTag } from '../../../domain/tags'
import { displayName, isTagName, normalizeTag } from '../../../text/hashtags'
import { urlsOf } from '../../../entities/account'
import type { TagLike } from '../../../entities/tag'
import { renderTags } from '../../../entities/tag'
import { optionalUser, requireUser } from '../../../users/current'

/** Mastodon's FollowedTagsController::TAGS_LIMIT. */
const FOLLOWED_TAGS_LIMIT = 100

/**
 * The tag `:id` names (any spelling): the stored one, or an unsaved one (id "") when nobody used it yet, as
 * Mastodon's TagsController; a name that is not a hashtag is 404 "Not Found".
 */
export async function tagNamed(
  ctx: AccountsContext,
  name: string | undefined,
): Promise<TagLike & Partial<TagRow>> {
  if (!name || !isTagName(name)) throw notFound()
  const [row] = await findTags(ctx.db, [name])
  return row ?? { id: null, name: normalizeTag(name), display_name: displayName(name) }
}

/** GET /api/v1/tags/:id — the Tag entity, with `following` and `featuring` for a signed-in user. */
export async function showTag(ctx: AccountsContext, req: Request, res: Response) {
  const viewer = await optionalUser(ctx, req)
  const tag = await tagNamed(ctx, nameParam(req))
  const [rendered] = await renderTags(ctx.db, urlsOf(ctx.config), [tag], viewer?.account.id)
  res.json(rendered)
}

const nameParam = (req: Request) => (typeof req.params.id === 'string' ? req.params.id : undefined)

/** POST /api/v1/tags/:id/follow — the Tag, `following: true`. */
export async function followTagRoute(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const named = await tagNamed(ctx, nameParam(req))
  const tag = await ctx.db.transaction((trx) => followTag(trx, account.id, named.display_name))
  const [rendered] = await renderTags(ctx.db, urlsOf(ctx.config), [tag], account.id)
  res.json(rendered)
}

/** POST /api/v1/tags/:id/unfollow — the Tag, `following: false`; its statuses leave the home feed. */
export async function unfollowTagRoute(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const tag = await tagNamed(ctx, nameParam(req))
  if (tag.id) await ctx.db.transaction((trx) => unfollowTag(trx, account.id, tag.id!))
  const [rendered] = await renderTags(ctx.db, urlsOf(ctx.config), [tag], account.id)
  res.json(rendered)
}

/**
 * GET /api/v1/followed_tags — the user's followed tags, newest follow first, paged by the follow's id (limit 100,
 * at most 200): Link next `max_id` when the page is full, prev `since_id`.
 */
export async function followedTags(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, followedTagsParams)
  const page = readPage(p, FOLLOWED_TAGS_LIMIT)
  const query = ctx
    .db('tag_follows')
    .join('tags', 'tags.id', 'tag_follows.tag_id')
    .where('tag_follows.account_id', account.id)
    .select('tags.*', 'tag_follows.id as page_id')
  const rows = await paginate<TagRow & { page_id: string }>(query, 'tag_follows.id', page)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.page_id,
    next: 'when-full',
    prev: 'since_id',
    kept: keptFromQuery(req.query, ['limit']),
  })
  res.json(await renderTags(ctx.db, urlsOf(ctx.config), rows, account.id))
}
