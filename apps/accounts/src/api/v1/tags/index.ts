import type { Request, Response } from 'express'
import { notFound } from '@roost/service'
import type { AccountsContext } from '../../../context'
import type { TagRow } from '../../../domain/tags'
import { displayName, findTags, isTagName, normalizeTag } from '../../../domain/tags'
import { urlsOf } from '../../../entities/account'
import type { TagLike } from '../../../entities/tag'
import { renderTags } from '../../../entities/tag'
import { optionalUser } from '../../../users/current'

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
  const tag = await tagNamed(ctx, typeof req.params.id === 'string' ? req.params.id : undefined)
  const [rendered] = await renderTags(ctx.db, urlsOf(ctx.config.PUBLIC_URL), [tag], viewer?.account.id)
  res.json(rendered)
}
