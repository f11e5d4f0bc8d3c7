import type { Urls } from './account'
import { mediaUrl } from './account'
import type { MediaAttachmentRow } from '../db/rows'

const typeOf = (contentType: string) =>
  contentType.startsWith('image/gif')
    ? 'gifv'
    : contentType.startsWith('image/')
      ? 'image'
      : contentType.startsWith('video/')
        ? 'video'
        : contentType.startsWith('audio/')
          ? 'audio'
          : 'unknown'

/**
 * Mastodon's MediaAttachment entity: `meta` and `blurhash` as computed on upload; attachments stored before
 * previews existed use the original as preview and have empty `meta`.
 */
export function renderMediaAttachment(row: MediaAttachmentRow, urls: Urls) {
  // A remote attachment not copied here (docs/federation.md, "Remote media"): linked to its server.
  if (row.remote_url && !row.file)
    return {
      id: row.id,
      type: typeOf(row.content_type),
      url: row.remote_url,
      preview_url: row.remote_url,
      remote_url: row.remote_url,
      preview_remote_url: null,
      text_url: null,
      meta: row.meta ?? {},
      description: row.description,
      blurhash: row.blurhash ?? null,
    }
  const url = mediaUrl(urls, row.file)
  return {
    id: row.id,
    type: 'image' as const,
    url,
    preview_url: row.preview_file ? mediaUrl(urls, row.preview_file) : url,
    remote_url: row.remote_url ?? null,
    preview_remote_url: null,
    text_url: null,
    meta: row.meta ?? {},
    description: row.description,
    blurhash: row.blurhash ?? null,
  }
}
