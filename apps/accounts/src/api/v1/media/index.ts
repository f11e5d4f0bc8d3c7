import type { Request, Response } from 'express'
import { readParams, updateMediaParams, uploadMediaParams } from '@roost/routes'
import { Invalid } from '@roost/errors'
import { paramMissing, recordNotFound, uploadedFile } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { parseId } from '../../../domain/records'
import type { MediaAttachmentRow } from '../../../db/rows'
import { renderMediaAttachment } from '../../../entities/media_attachment'
import { storeAttachmentImage } from '../../../media/attachment'
import { parseFocus } from '../../../media/focus'
import type { Focus } from '../../../media/attachment'
import { inspectUpload, isAnimatedGif, processAv, storeThumbnail } from '../../../media/av'
import { MediaToolError } from '../../../media/ffmpeg'
import { processedColumns, queueUpload } from '../../../media/processing'
import { imageType, newFileName } from '../../../media/storage'
import { requireUser } from '../../../users/current'

/** Mastodon's MediaController `processing_error`: an upload that could not be processed. */
const PROCESSING_ERROR = 'Error processing thumbnail for uploaded media'

/**
 * POST /api/v1/media and /api/v2/media — an attachment, not yet on a status, with its focal point when `focus` is
 * given. A still image is re-encoded without its metadata (docs/media.md, "Images") and processed before
 * answering (its `small` preview, `meta` and blurhash), so both answer 200 at once. A video, audio file or animated
 * GIF (docs/media.md, "Video, audio and GIFs") is checked with ffprobe (unreadable: 422), then, as in Mastodon, v2
 * stores it and answers 202 with `url: null` while the accounts worker transcodes it, and v1 transcodes it in the
 * request and answers 200.
 */
export async function uploadMedia(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const file = uploadedFile(req, 'file')
  if (!file) throw paramMissing('file')
  const { description, focus } = readParams(req, uploadMediaParams)
  const point = parseFocus(focus)
  if (!imageType(file.buffer) || (await isAnimatedGif(file.buffer)))
    return uploadAv(ctx, req, res, account.id, file.buffer, {
      description: description || null,
      focus: point,
    })
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

/** A video, audio file or animated GIF upload: queued for the worker (v2, 202) or processed at once (v1, 200). */
async function uploadAv(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  accountId: string,
  data: Buffer,
  { description, focus }: { description: string | null; focus: Focus | undefined },
) {
  const inspected = await inspectUpload(data)
  const thumbnail = uploadedFile(req, 'thumbnail')
  const thumbnailFile = thumbnail ? await storeThumbnail(ctx.media, thumbnail.buffer) : null
  const urls = urlsOf(ctx.config)
  if (req.path.startsWith('/api/v2/')) {
    const source = newFileName(inspected.ext)
    await ctx.media.put(source, data, inspected.contentType)
    const row = await ctx.db.transaction((trx) =>
      queueUpload(trx, {
        accountId,
        file: source,
        contentType: inspected.contentType,
        kind: inspected.kind,
        description,
        thumbnailFile,
        focus,
      }),
    )
    return res.status(202).json(renderMediaAttachment(row, urls))
  }
  let processed
  try {
    processed = await processAv(ctx.media, data, inspected.kind, {
      timeoutMs: ctx.config.MEDIA_TRANSCODE_TIMEOUT_MS,
    })
  } catch (err) {
    // Mastodon answers 500 here; a file it could not convert is the client's, so Roost answers 422.
    if (err instanceof MediaToolError) throw new Invalid(PROCESSING_ERROR, undefined, { cause: err })
    throw err
  }
  const [row]: MediaAttachmentRow[] = await ctx
    .db('media_attachments')
    .insert({
      account_id: accountId,
      description,
      thumbnail_file: thumbnailFile,
      ...processedColumns(processed, focus ? { focus } : {}),
    })
    .returning('*')
  res.json(renderMediaAttachment(row!, urls))
}

/**
 * GET /api/v1/media/:id — one of the caller's attachments that is not on a status yet (Mastodon's
 * `MediaController#show`; attached or someone else's → 404): 206 while it is processed, 200 once done (masto.js
 * polls it until `url` is set), and Mastodon's 422 when processing failed.
 */
export async function showMedia(ctx: AccountsContext, req: Request, res: Response) {
  const row = await ownUnattachedMedia(ctx, req)
  res.status(statusOf(row)).json(renderMediaAttachment(row, urlsOf(ctx.config)))
}

/** Mastodon's `status_code_for_media_attachment`: 206 while not processed. */
const statusOf = (row: MediaAttachmentRow) =>
  row.processing === 'queued' || row.processing === 'in_progress' ? 206 : 200

/** The caller's attachment named by `:id` that is not on a status yet; anything else is a 404, as in Mastodon. */
async function ownUnattachedMedia(ctx: AccountsContext, req: Request): Promise<MediaAttachmentRow> {
  const { account } = await requireUser(ctx, req)
  const id = parseId(req.params.id)
  const row: MediaAttachmentRow | undefined = id
    ? await ctx.db('media_attachments').where({ id, account_id: account.id, status_id: null }).first()
    : undefined
  if (!row) throw recordNotFound()
  // Mastodon's `check_processing`.
  if (row.processing === 'failed') throw new Invalid(PROCESSING_ERROR)
  return row
}

/**
/**
 * PUT /api/v1/media/:id — sets the description (alt text), the focal point (`focus`, `meta.focus`) and a custom
 * preview (`thumbnail`, an image) before the attachment is posted; absent parameters leave them as they are. 206
 * while it is still processed, as Mastodon.
 */
export async function updateMedia(ctx: AccountsContext, req: Request, res: Response) {
  const row = await ownUnattachedMedia(ctx, req)
  const { description, focus } = readParams(req, updateMediaParams)
  const point = parseFocus(focus)
  const thumbnail = uploadedFile(req, 'thumbnail')
  const changes: Partial<Record<keyof MediaAttachmentRow, unknown>> = {}
  if (description !== undefined) changes.description = description || null
  if (point) changes.meta = JSON.stringify({ ...(row.meta ?? {}), focus: point })
  if (thumbnail) changes.thumbnail_file = await storeThumbnail(ctx.media, thumbnail.buffer)
  const [updated]: MediaAttachmentRow[] = Object.keys(changes).length
    ? await ctx.db('media_attachments').where({ id: row.id }).update(changes).returning('*')
    : [row]
  if (thumbnail && row.thumbnail_file) await ctx.media.remove(row.thumbnail_file)
  res.status(statusOf(updated!)).json(renderMediaAttachment(updated!, urlsOf(ctx.config)))
}

/** DELETE /api/v1/media/:id — discards an upload that was never posted (Mastodon 4.4); 200 `{}`. */
export async function deleteMedia(ctx: AccountsContext, req: Request, res: Response) {
  const row = await ownUnattachedMedia(ctx, req)
  await ctx.db('media_attachments').where({ id: row.id, status_id: null }).delete()
  for (const name of [row.file, row.preview_file, row.thumbnail_file]) if (name) await ctx.media.remove(name)
  res.json({})
}
