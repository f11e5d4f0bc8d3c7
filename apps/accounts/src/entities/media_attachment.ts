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
  const type = row.type ?? typeOf(row.content_type)
  // A remote attachment not copied here (docs/federation.md, "Remote media"): linked to its server.
  if (row.remote_url && !row.file)
    return {
      id: row.id,
      type,
      url: row.remote_url,
      // A video's or sound's own address is no picture: its server's preview, if it sent one.
      preview_url: type === 'image' ? row.remote_url : (row.preview_remote_url ?? null),
      remote_url: row.remote_url,
      preview_remote_url: row.preview_remote_url ?? null,
      text_url: null,
      meta: row.meta ?? {},
      description: row.description,
      blurhash: row.blurhash ?? null,
    }
  // Video, audio and GIFs not processed yet have no `url`, as in Mastodon (docs/media.md, "Video, audio and GIFs").
  const processed = !row.processing || row.processing === 'complete'
  const url = processed ? mediaUrl(urls, row.file) : null
  const preview = row.thumbnail_file ?? row.preview_file
  const localType = row.type ?? ('image' as const)
  return {
    id: row.id,
    type: localType,
    url,
    // Audio without a cover or thumbnail has no preview, as in Mastodon (no `small` style).
    preview_url: preview ? mediaUrl(urls, preview) : localType === 'image' ? url : null,
    remote_url: row.remote_url ?? null,
    preview_remote_url: row.preview_remote_url ?? null,
    text_url: null,
    meta: row.meta ?? {},
    description: row.description,
    blurhash: row.blurhash ?? null,
  }
}
