import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { adminCreateEmojiParams, adminEmojisParams, adminUpdateEmojiParams, readParams } from '@roost/routes'
import { paramText, readPage, setPageLinks, unprocessable } from '@roost/service'
import { uploadedFile } from '@roost/service'
import type { AccountsContext } from '../../../context'
import type { CustomEmojiRow } from '../../../db/rows'
import {
  copyEmoji,
  createLocalEmoji,
  deleteEmoji,
  findEmoji,
  updateEmoji,
} from '../../../domain/custom_emojis'
import { urlsOf } from '../../../entities/account'
import { renderCustomEmoji } from '../../../entities/custom_emoji'
import { requirePermission } from '../../../users/roles'
import { logAction } from '../../../domain/action_log'

/**
 * The admin API of custom emojis (docs/emoji.md): Roost additions, since Mastodon manages emojis only in its web
 * admin (Admin::CustomEmojisController); they do what its actions do (upload, list and unlist, enable and disable,
 * change the category, copy a remote emoji, delete). Admins only, as Mastodon's `manage_custom_emojis`.
 */

const DEFAULT_LIMIT = 100

/** The CustomEmoji entity plus what an admin needs: id, domain, disabled, the remote URL and dates. */
export function adminEmojiEntity(row: CustomEmojiRow, ctx: AccountsContext) {
  const urls = urlsOf(ctx.config)
  return {
    id: row.id,
    ...(row.file
      ? renderCustomEmoji(row, urls)
      : { shortcode: row.shortcode, url: null, static_url: null, visible_in_picker: row.visible_in_picker }),
    category: row.category,
    domain: row.domain,
    disabled: row.disabled,
    uri: row.uri,
    image_remote_url: row.image_remote_url,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  }
}

/** GET /api/v1/admin/custom_emojis — newest first, keyset pages; `local`, `remote`, `by_domain`, `shortcode`. */
export async function listAdminEmojis(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const p = readParams(req, adminEmojisParams)
  const page = readPage(p, DEFAULT_LIMIT)
  const query = ctx.db('custom_emojis')
  if (p.local && !p.remote) query.whereNull('domain')
  if (p.remote && !p.local) query.whereNotNull('domain')
  if (p.by_domain) query.where({ domain: p.by_domain.trim().toLowerCase() })
  if (p.shortcode)
    query.whereRaw("shortcode ILIKE ? ESCAPE '\\'", [`%${p.shortcode.replace(/[\\%_]/g, '\\$&')}%`])
  const rows = await paginate<CustomEmojiRow>(query, 'id', page)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-not-empty',
    prev: 'min_id',
    kept: { limit: paramText(p.limit) },
    path: '/api/v1/admin/custom_emojis',
  })
  res.json(rows.map((r) => adminEmojiEntity(r, ctx)))
}

/** GET /api/v1/admin/custom_emojis/:id */
export async function showAdminEmoji(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  res.json(adminEmojiEntity(await findEmoji(ctx.db, req.params.id), ctx))
}

/** POST /api/v1/admin/custom_emojis — multipart `shortcode`, `image`, optional `category`, `visible_in_picker`. */
export async function createAdminEmoji(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const p = readParams(req, adminCreateEmojiParams)
  const image = uploadedFile(req, 'image')
  if (!p.shortcode) throw unprocessable("Validation failed: Shortcode can't be blank")
  if (!image) throw unprocessable("Validation failed: Image can't be blank")
  const row = await createLocalEmoji(ctx.db, ctx.media, {
    shortcode: p.shortcode,
    image: image.buffer,
    category: p.category,
    visibleInPicker: p.visible_in_picker,
  })
  await logEmoji(ctx, staff.account.id, 'create', row)
  res.json(adminEmojiEntity(row, ctx))
}

/** PATCH /api/v1/admin/custom_emojis/:id — `category` (empty: none), `visible_in_picker`, `disabled`. */
export async function updateAdminEmoji(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const p = readParams(req, adminUpdateEmojiParams)
  const row = await updateEmoji(ctx.db, req.params.id, {
    category: p.category,
    visibleInPicker: p.visible_in_picker,
    disabled: p.disabled,
  })
  await logEmoji(ctx, staff.account.id, 'update', row)
  res.json(adminEmojiEntity(row, ctx))
}

/** DELETE /api/v1/admin/custom_emojis/:id — the emoji and its files; 200 with what it was. */
export async function deleteAdminEmoji(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const row = await deleteEmoji(ctx.db, ctx.media, req.params.id)
  await logEmoji(ctx, staff.account.id, 'destroy', row)
  res.json(adminEmojiEntity(row, ctx))
}

/** POST /api/v1/admin/custom_emojis/:id/copy — Mastodon's "copy" of a remote emoji: the local one it made. */
export async function copyAdminEmoji(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const row = await copyEmoji(ctx.db, ctx.media, req.params.id)
  await logEmoji(ctx, staff.account.id, 'copy', row)
  res.json(adminEmojiEntity(row, ctx))
}

/** The audit log's line (docs/moderation.md): the emoji calls run their own transactions, so it follows them. */
const logEmoji = (ctx: AccountsContext, staffId: string, action: string, row: CustomEmojiRow) =>
  logAction(ctx.db, {
    accountId: staffId,
    action,
    targetType: 'CustomEmoji',
    targetId: String(row.id),
    humanIdentifier: row.domain ? `${row.shortcode}@${row.domain}` : row.shortcode,
  })
