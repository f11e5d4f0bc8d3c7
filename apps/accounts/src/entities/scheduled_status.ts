import type { Knex } from '@roost/db'
import type { MediaAttachmentRow, ScheduledStatusRow } from '../db/rows'
import type { Urls } from './account'
import { renderMediaAttachment } from './media_attachment'

/**
 * Mastodon's ScheduledStatus entity (app/serializers/rest/scheduled_status_serializer.rb): id, scheduled_at, the
 * parameters it will be posted with, and the uploads it holds, in the order given. Ids inside `params` are strings
 * (Mastodon's are JSON numbers; Roost's 64-bit ids do not fit a JavaScript number).
 */
export async function renderScheduledStatuses(db: Knex, urls: Urls, rows: ScheduledStatusRow[]) {
  const media: MediaAttachmentRow[] = rows.length
    ? await db('media_attachments').whereIn(
        'scheduled_status_id',
        rows.map((r) => r.id),
      )
    : []
  return rows.map((row) => {
    const order = row.params.media_ids ?? []
    const own = media
      .filter((m) => m.scheduled_status_id === row.id)
      .sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id))
    return {
      id: row.id,
      scheduled_at: new Date(row.scheduled_at).toISOString(),
      params: row.params,
      media_attachments: own.map((m) => renderMediaAttachment(m, urls)),
    }
  })
}

export const renderScheduledStatus = async (db: Knex, urls: Urls, row: ScheduledStatusRow) =>
  (await renderScheduledStatuses(db, urls, [row]))[0]!
