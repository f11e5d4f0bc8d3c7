import type { Urls } from './account'
import { mediaUrl } from './account'

export interface MediaAttachmentRow {
  id: string
  account_id: string
  status_id: string | null
  /** The scheduled status holding it until publication. */
  scheduled_status_id?: string | null
  file: string
  content_type: string
  description: string | null
  created_at: Date
}

/** Mastodon's MediaAttachment entity; Roost stores images as uploaded, so the preview is the original. */
export function renderMediaAttachment(row: MediaAttachmentRow, urls: Urls) {
  const url = mediaUrl(urls, row.file)
  return {
    id: row.id,
    type: 'image' as const,
    url,
    preview_url: url,
    remote_url: null,
    preview_remote_url: null,
    text_url: null,
    meta: {},
    description: row.description,
    blurhash: null,
  }
}
