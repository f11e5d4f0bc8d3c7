import type { Queue } from 'bullmq'
import type { Knex } from '@roost/db'
import { Invalid } from '@roost/errors'
import type { MediaJob } from '@roost/events'
import type { Logger } from '@roost/service'
import type { Federation } from '../federation/transport/client'
import { FetchError } from '../federation/transport/client'
import { domainPolicy } from '../federation/domain-blocks'
import { storeAttachmentImage } from '../media/attachment'
import { isAnimatedGif, processAv } from '../media/av'
import type { AvKind } from '../media/av'
import { MediaToolError } from '../media/ffmpeg'
import type { MediaFiles } from '../media/files'
import { processedColumns } from '../media/processing'
import { imageType } from '../media/storage'
import type { CustomEmojiRow, MediaAttachmentRow } from '../db/rows'
import { refreshAccountsUsing } from '../domain/custom_emojis'
import { storeEmojiFiles } from '../media/images'
import type { Reads } from '../domain/reads'
import type { Consumer } from './consumer'

/** Fetches of one remote attachment at most: the first and three retries (Mastodon's media workers retry 3 times). */
export const REMOTE_MEDIA_ATTEMPTS = 4

/**
 * Finds the attachments of remote statuses to copy to this server (docs/federation.md, "Remote media"), as
 * Mastodon downloads a remote status's media when it stores it: once a status from another server is created or
 * edited, each attachment still only linked becomes a `media.fetch` job of the `media` queue (one per attachment,
 * `remote-media-<id>`: added again, it is still one job), where `copyRemoteAttachment` copies it, retried with
 * backoff while its server fails. A host under `reject_media` is not asked at all. Nothing else waits for media.
 */
export function remoteMediaConsumer(db: Knex, queue: Queue, retryBaseMs: number): Consumer {
  async function copyMedia({ statusId }: { statusId: string }, reads: Reads) {
    const row = await reads.status(statusId)
    if (!row?.uri) return // a local status (only another server's have a URI of their own)
    const author = await reads.account(row.account_id)
    if (!author?.domain) return
    const linked: { id: string }[] = await db('media_attachments')
      .where({ status_id: statusId, file: '' })
      .whereNotNull('remote_url')
      .orderBy('id')
      .select('id')
    if (!linked.length || (await domainPolicy(db, author.domain)).rejectMedia) return
    await queue.addBulk(
      linked.map(({ id }) => ({
        name: 'media.fetch',
        data: { event: 'media.fetch', mediaAttachmentId: id } satisfies MediaJob,
        opts: {
          jobId: `remote-media-${id}`,
          attempts: REMOTE_MEDIA_ATTEMPTS,
          backoff: { type: 'exponential', delay: retryBaseMs },
          removeOnComplete: { age: 60, count: 1000 },
          removeOnFail: { age: 7 * 24 * 3600 },
        },
      })),
    )
  }

  /** Other servers' emojis to copy (docs/emoji.md): a job each, its id naming the image URL's version. */
  async function copyEmojis({ customEmojiIds }: { customEmojiIds: string[] }) {
    const rows: { id: string; updated_at: Date }[] = await db('custom_emojis')
      .whereIn('id', customEmojiIds)
      .where({ needs_fetch: true })
      .select('id', 'updated_at')
    if (!rows.length) return
    await queue.addBulk(
      rows.map(({ id, updated_at }) => ({
        name: 'emoji.fetch',
        data: { event: 'emoji.fetch', customEmojiId: id } satisfies MediaJob,
        opts: {
          jobId: `remote-emoji-${id}-${new Date(updated_at).getTime()}`,
          attempts: REMOTE_MEDIA_ATTEMPTS,
          backoff: { type: 'exponential', delay: retryBaseMs },
          removeOnComplete: { age: 60, count: 1000 },
          removeOnFail: { age: 7 * 24 * 3600 },
        },
      })),
    )
  }

  return { 'status.created': copyMedia, 'status.updated': copyMedia, 'custom_emojis.linked': copyEmojis }
}

/**
 * Copies another server's custom emoji (the `emoji.fetch` job, docs/emoji.md), as Mastodon downloads an emoji's
 * image: fetched like remote media, then re-encoded under the emoji limits (smaller than 256 KB, 400×400; PNG, GIF
 * or WebP) with its still PNG. An emoji is shown only once copied; a new image (a later `updated`) replaces the old
 * one, whose files are then deleted, and the profiles of that server that use it are refreshed. What cannot be
 * copied for good stays unshown (the old image, if any, stays); a failing server is tried again.
 */
export async function fetchRemoteEmoji(
  d: { db: Knex; federation: Federation; files: MediaFiles; logger: Logger },
  id: string,
): Promise<void> {
  const { db, federation, files, logger } = d
  const emoji: CustomEmojiRow | undefined = await db('custom_emojis').where({ id, needs_fetch: true }).first()
  if (!emoji?.image_remote_url || !emoji.domain) return
  const url = emoji.image_remote_url
  if ((await domainPolicy(db, emoji.domain)).rejectMedia) return
  let stored: Awaited<ReturnType<typeof storeEmojiFiles>>
  try {
    stored = await storeEmojiFiles(files, await federation.fetchMedia(url))
  } catch (err) {
    if (isFinal(err) || err instanceof Invalid) {
      logger.info({ err, url }, 'remote emoji not copied')
      await db('custom_emojis').where({ id, image_remote_url: url }).update({ needs_fetch: false })
      return
    }
    throw err
  }
  const updated = await db.transaction(async (trx) => {
    const n = await trx('custom_emojis').where({ id, image_remote_url: url, needs_fetch: true }).update({
      file: stored.file,
      static_file: stored.staticFile,
      content_type: stored.type,
      needs_fetch: false,
    })
    if (n) await refreshAccountsUsing(trx, emoji.domain, emoji.shortcode)
    return n
  })
  const gone = updated ? [emoji.file, emoji.static_file] : [stored.file, stored.staticFile]
  for (const file of new Set(gone)) if (file) await files.remove(file)
}

/** A fetch that will not go better later: the server refused (4xx but 408 and 429) or the file is too large. */
const isFinal = (err: unknown) =>
  err instanceof FetchError &&
  (/too large/.test(err.message) ||
    (err.status !== undefined &&
      err.status >= 400 &&
      err.status < 500 &&
      err.status !== 408 &&
      err.status !== 429))

/**
 * Copies one remote attachment (the `media.fetch` job): fetched through the federation client (refused addresses,
 * REMOTE_MEDIA_MAX_BYTES), then stored like an upload. An image gets its preview, sizes and blurhash; a video,
 * audio file or animated GIF is probed with ffprobe for `meta` and a preview frame, and transcoded only when
 * browsers cannot play it as it is. The entity then serves our copy and keeps the original as `remote_url`. What
 * cannot be copied for good (too large, refused, not a file the tools read) stays linked; a server that fails
 * throws, for the job to try again later, and after the last attempt the attachment stays linked too. Copying again
 * finds nothing left to do.
 */
export async function copyRemoteAttachment(
  d: { db: Knex; federation: Federation; files: MediaFiles; logger: Logger; timeoutMs: number },
  id: string,
): Promise<void> {
  const { db, federation, files, logger } = d
  const attachment: MediaAttachmentRow | undefined = await db('media_attachments')
    .where({ id, file: '' })
    .whereNotNull('remote_url')
    .first()
  if (!attachment?.remote_url) return
  const url = attachment.remote_url
  let data: Buffer
  try {
    data = await federation.fetchMedia(url)
  } catch (err) {
    if (isFinal(err)) {
      logger.info({ err, url }, 'remote attachment not copied: it stays linked')
      return
    }
    throw err // the server failed: the job tries again later
  }
  let columns: Record<string, unknown>
  let made: (string | null)[]
  try {
    if (imageType(data) && !(await isAnimatedGif(data))) {
      const stored = await storeAttachmentImage(files, data)
      made = [stored.file, stored.previewFile]
      columns = {
        file: stored.file,
        preview_file: stored.previewFile,
        content_type: stored.type,
        // Our copy's sizes, with the sender's focal point (docs/federation.md, "Remote media").
        meta: JSON.stringify({
          ...stored.meta,
          ...(attachment.meta?.focus ? { focus: attachment.meta.focus } : {}),
        }),
      }
      // The sender's blurhash is what its own clients show; ours only when it sent none.
      columns.blurhash = attachment.blurhash ?? stored.blurhash
    } else {
      const kind: AvKind = imageType(data)
        ? 'gifv'
        : attachment.type === 'audio' || attachment.content_type.startsWith('audio/')
          ? 'audio'
          : 'video'
      const processed = await processAv(files, data, kind, { timeoutMs: d.timeoutMs, keepPlayable: true })
      made = [processed.file, processed.previewFile]
      columns = {
        ...processedColumns(processed, attachment.meta ?? {}),
        processing: null,
        blurhash: attachment.blurhash ?? processed.blurhash,
      }
    }
  } catch (err) {
    // Not a file the tools read (storeAttachmentImage's Invalid, processAv's MediaToolError): it stays linked.
    if (!(err instanceof MediaToolError || err instanceof Invalid)) throw err
    logger.info({ err, url }, 'remote attachment does not decode: it stays linked')
    return
  }
  const updated = await db('media_attachments').where({ id, file: '' }).update(columns)
  // Another run copied it first (a retried job): ours are not needed.
  if (!updated) for (const file of made) if (file) await files.remove(file)
}
