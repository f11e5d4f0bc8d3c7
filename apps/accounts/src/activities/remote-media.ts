import type { Knex } from '@roost/db'
import type { Logger } from '@roost/service'
import type { Federation } from '../federation/transport/client'
import { domainPolicy } from '../federation/domain-blocks'
import { storeAttachmentImage } from '../media/attachment'
import type { MediaFiles } from '../media/files'
import { imageType } from '../media/storage'
import type { Reads } from '../domain/reads'
import type { Consumer } from './consumer'

interface RemoteAttachment {
  id: string
  remote_url: string
  blurhash: string | null
  meta: Record<string, unknown> | null
}

/** `{key: value}` of `meta` when it has `key`, else nothing. */
const pick = (meta: Record<string, unknown> | null, key: string) =>
  meta && meta[key] !== undefined ? { [key]: meta[key] } : {}

/**
 * Copies the image attachments of remote statuses to this server (docs/federation.md, "Remote media"), as
 * Mastodon downloads a remote status's media when it stores it: once a status from another server is created or
 * edited, each attachment still only linked is fetched through the federation client (refused addresses, size
 * limit), checked to be an image by its bytes, and re-encoded and stored with its preview, sizes and blurhash like
 * an upload (metadata stripped, docs/media.md, "Images"); the
 * entity then serves our copy and keeps the original as `remote_url`. What cannot be copied (a server that
 * fails, a file too large, a video, a host under `reject_media`) stays linked, and the activity goes on: nothing
 * else waits for media. Copying again finds nothing left to do.
 */
export function remoteMediaConsumer(
  db: Knex,
  federation: Federation,
  files: MediaFiles,
  logger: Logger,
): Consumer {
  async function copyMedia({ statusId }: { statusId: string }, reads: Reads) {
    const row = await reads.status(statusId)
    if (!row?.uri) return // a local status (only another server's have a URI of their own)
    const author = await reads.account(row.account_id)
    if (!author?.domain) return
    const linked: RemoteAttachment[] = await db('media_attachments')
      .where({ status_id: statusId, file: '' })
      .whereNotNull('remote_url')
      .orderBy('id')
      .select('id', 'remote_url', 'blurhash', 'meta')
    if (!linked.length || (await domainPolicy(db, author.domain)).rejectMedia) return
    for (const attachment of linked) await copyOne(attachment)
  }

  async function copyOne(attachment: RemoteAttachment) {
    let data: Buffer
    try {
      data = await federation.fetchMedia(attachment.remote_url)
    } catch (err) {
      logger.info({ err, url: attachment.remote_url }, 'remote attachment not copied: it stays linked')
      return
    }
    if (!imageType(data)) return // videos, audio and anything else stay linked
    let stored: Awaited<ReturnType<typeof storeAttachmentImage>>
    try {
      stored = await storeAttachmentImage(files, data)
    } catch (err) {
      logger.info({ err, url: attachment.remote_url }, 'remote attachment does not decode: it stays linked')
      return
    }
    const updated = await db('media_attachments')
      .where({ id: attachment.id, file: '' })
      .update({
        file: stored.file,
        preview_file: stored.previewFile,
        content_type: stored.type,
        // Our copy's sizes, with the sender's focal point (docs/federation.md, "Remote media").
        meta: JSON.stringify({ ...stored.meta, ...pick(attachment.meta, 'focus') }),
        // The sender's blurhash is what its own clients show; ours only when it sent none.
        blurhash: attachment.blurhash ?? stored.blurhash,
      })
    // Another run copied it first (a retried job): ours are not needed.
    if (!updated) for (const file of [stored.file, stored.previewFile]) await files.remove(file)
  }

  return { 'status.created': copyMedia, 'status.updated': copyMedia }
}
