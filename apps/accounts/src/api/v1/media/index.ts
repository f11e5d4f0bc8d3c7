import type { Request, Response } from 'express'
import { readParams, updateMediaParams, uploadMediaParams } from '@roost/routes'
import { paramMissing, recordNotFound, uploadedFile } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { parseId } from '../../../domain/records'
import type { MediaAttachmentRow } from '../../../db/rows'
import { renderMediaAttachment } from '../../../entities/media_attachment'
import { storeAttachmentImage } from '../../../media/attachment'
import { parseFocus } from '../../../media/focus'
import { requireUser } from '../../../users/current'

/**
 * POST /api/v1/media and /api/v2/media — an image attachment, not yet on a status, re-encoded without its metadata
 * (docs/media.md, "Images"), with its focal point when `focus` is given. The `small` preview, `meta`
 * and blurhash are computed before answering, so v2 can answer 200 at once (Mastodon answers 202 only while it
 * still processes a file).
 */
export async function uploadMedia(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const file = uploadedFile(req, 'file')
  if (!file) throw paramMissing('file')
  const { description, focus } = readParams(req, uploadMediaParams)
  const point = parseFocus(focus)
  const stored = await storeAttachmentImage(ctx.media, file.buffer)
  const [row]: MediaAttachmentRow[] = await ctx
    .db('media_attachments')
    .insert({
      account_id: account.id,
      file: stored.file,
      content_type: stored.type,
      description: description || null,
      preview_file: stored.previewFile,
      meta: JSON.stringify(point ? { ...stored.meta, focus: point } : stored.meta),
      blurhash: stored.blurhash,
    })
    .returning('*')
  res.json(renderMediaAttachment(row!, urlsOf(ctx.config)))
}

/**
 * GET /api/v1/media/:id — one of the caller's attachments that is not on a status yet (Mastodon's
 * `MediaController#show`; attached or someone else's → 404). masto.js polls it after every v2 upload until `url`
 * is set, and treats 404 as "still processing", so without it an upload never finishes.
 */
export async function showMedia(ctx: AccountsContext, req: Request, res: Response) {
  const row = await ownUnattachedMedia(ctx, req)
  res.json(renderMediaAttachment(row, urlsOf(ctx.config)))
}

/** The caller's attachment named by `:id` that is not on a status yet; anything else is a 404, as in Mastodon. */
async function ownUnattachedMedia(ctx: AccountsContext, req: Request): Promise<MediaAttachmentRow> {
  const { account } = await requireUser(ctx, req)
  const id = parseId(req.params.id)
  const row: MediaAttachmentRow | undefined = id
    ? await ctx.db('media_attachments').where({ id, account_id: account.id, status_id: null }).first()
    : undefined
  if (!row) throw recordNotFound()
  return row
}

/**
 * PUT /api/v1/media/:id — sets the description (alt text) and the focal point (`focus`, `meta.focus`) before the
 * attachment is posted; absent parameters leave them as they are.
 */
export async function updateMedia(ctx: AccountsContext, req: Request, res: Response) {
  const row = await ownUnattachedMedia(ctx, req)
  const { description, focus } = readParams(req, updateMediaParams)
  const point = parseFocus(focus)
  const change: Partial<Record<keyof MediaAttachmentRow, unknown>> = {}
  if (description !== undefined) change.description = description || null
  if (point) change.meta = JSON.stringify({ ...(row.meta ?? {}), focus: point })
  const [updated]: MediaAttachmentRow[] = Object.keys(change).length
    ? await ctx.db('media_attachments').where({ id: row.id }).update(change).returning('*')
    : [row]
  res.json(renderMediaAttachment(updated!, urlsOf(ctx.config)))
}

/** DELETE /api/v1/media/:id — discards an upload that was never posted (Mastodon 4.4); 200 `{}`. */
export async function deleteMedia(ctx: AccountsContext, req: Request, res: Response) {
  const row = await ownUnattachedMedia(ctx, req)
  await ctx.db('media_attachments').where({ id: row.id, status_id: null }).delete()
  await ctx.media.remove(row.file)
  if (row.preview_file) await ctx.media.remove(row.preview_file)
  res.json({})
}
