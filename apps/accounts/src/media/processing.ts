import type { Knex } from '@roost/db'
import { add } from '../outbox/outbox'
import type { MediaAttachmentRow } from '../db/rows'
import type { MediaFiles } from './files'
import type { Focus } from './attachment'
import { processAv } from './av'
import type { AvKind, ProcessedMedia } from './av'
import { MediaToolError } from './ffmpeg'

/*
 * The life of a video, audio or animated GIF upload (docs/media.md, "Video, audio and GIFs"), Mastodon's
 * `processing`: `queued` when stored, `in_progress` while the worker transcodes it, then `complete` (the
 * transcoded file and its preview replace the source) or `failed` (the file could not be converted; it stays
 * unusable and `GET /api/v1/media/:id` answers Mastodon's 422).
 */

export interface NewUpload {
  accountId: string
  file: string
  contentType: string
  kind: AvKind
  description: string | null
  thumbnailFile: string | null
  /** The focal point given with the upload (`meta.focus`), kept through processing. */
  focus?: Focus
}

/**
 * Records an upload to process later (v2) in `trx`, with the `media.uploaded` event that has the accounts worker
 * transcode it: the job exists exactly when the row does.
 */
export async function queueUpload(trx: Knex, upload: NewUpload): Promise<MediaAttachmentRow> {
  const [row]: MediaAttachmentRow[] = await trx('media_attachments')
    .insert({
      account_id: upload.accountId,
      file: upload.file,
      content_type: upload.contentType,
      type: upload.kind,
      description: upload.description,
      thumbnail_file: upload.thumbnailFile,
      processing: 'queued',
      meta: JSON.stringify(upload.focus ? { focus: upload.focus } : {}),
    })
    .returning('*')
  await add(trx, { event: 'media.uploaded', mediaAttachmentId: row!.id })
  return row!
}

/** The columns a processed attachment gets. */
export const processedColumns = (result: ProcessedMedia, meta: Record<string, unknown> = {}) => ({
  file: result.file,
  content_type: result.contentType,
  type: result.type,
  preview_file: result.previewFile,
  // What the client set before processing ended (a focus point) stays.
  meta: JSON.stringify({ ...(meta.focus ? { focus: meta.focus } : {}), ...result.meta }),
  blurhash: result.blurhash,
  processing: 'complete' as const,
})

/** Files that are no longer anyone's: removed, a failure to do so only logged by the caller. */
const removeAll = (files: MediaFiles, names: (string | null | undefined)[]) =>
  Promise.all(names.filter((n): n is string => !!n).map((n) => files.remove(n)))

export type ProcessOutcome = 'complete' | 'failed' | 'nothing to do'

/**
 * Processes the queued upload `id` (the accounts worker's `media.uploaded` job): marks it `in_progress`, transcodes
 * its source, and stores the result, or marks it `failed` when the tools cannot convert the file. Run again (a
 * retried job) it finds the work done and does nothing; an upload deleted meanwhile is left alone, and what was
 * made for it removed. Anything else thrown (storage, database) is for the job to retry.
 */
export async function processUpload(
  db: Knex,
  files: MediaFiles,
  id: string,
  options: { timeoutMs: number; onProgress?: (done: number) => void },
): Promise<{ outcome: ProcessOutcome; error?: Error }> {
  const row: MediaAttachmentRow | undefined = await db('media_attachments').where({ id }).first()
  if (!row || (row.processing !== 'queued' && row.processing !== 'in_progress'))
    return { outcome: 'nothing to do' }
  await db('media_attachments').where({ id, processing: 'queued' }).update({ processing: 'in_progress' })
  const source = await files.read(row.file)
  if (!source) return failed(db, id, new Error(`the source ${row.file} is gone`))
  let result: ProcessedMedia
  try {
    result = await processAv(files, source, (row.type as AvKind | null) ?? 'video', options)
  } catch (err) {
    if (err instanceof MediaToolError) return failed(db, id, err)
    throw err
  }
  const updated = await db.transaction(async (trx) => {
    const current: MediaAttachmentRow | undefined = await trx('media_attachments')
      .where({ id, file: row.file })
      .whereIn('processing', ['queued', 'in_progress'])
      .forUpdate()
      .first()
    if (!current) return false
    await trx('media_attachments')
      .where({ id })
      .update(processedColumns(result, current.meta ?? {}))
    return true
  })
  // Deleted (or done by another run) meanwhile: what this run made is nobody's.
  if (!updated) {
    await removeAll(files, [result.file, result.previewFile])
    return { outcome: 'nothing to do' }
  }
  if (result.file !== row.file) await files.remove(row.file)
  return { outcome: 'complete' }
}

/** Marks the upload `failed`: it can no longer be posted, and its GET answers Mastodon's 422. */
export async function failed(
  db: Knex,
  id: string,
  error: Error,
): Promise<{ outcome: 'failed'; error: Error }> {
  await db('media_attachments')
    .where({ id })
    .whereIn('processing', ['queued', 'in_progress'])
    .update({ processing: 'failed' })
  return { outcome: 'failed', error }
}
