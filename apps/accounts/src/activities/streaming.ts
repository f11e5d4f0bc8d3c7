import type { Knex } from '@roost/db'
import type { AnnouncementRow } from '../db/rows'
import type { Urls } from '../entities/account'
import { renderAnnouncements } from '../entities/announcement'
import type { StreamingPublisher } from '../streaming/publisher'
import type { Consumer } from './consumer'

/**
 * The public and hashtag streams from activities (docs/streaming.md). Home and list feeds tell the publisher what
 * enters and leaves them (feeds/context.ts, FeedListener) and notifications are streamed as they are made
 * (notifications.ts); this is the rest.
 */
export function streamingConsumer(db: Knex, urls: Urls, streaming: StreamingPublisher): Consumer {
  return {
    'status.created': async (a, reads) => {
      const row = await reads.status(a.statusId)
      if (row) await streaming.publicStatus(row, 'update', reads)
    },
    'status.updated': async (a, reads) => {
      const row = await reads.status(a.statusId)
      if (row) await streaming.publicStatus(row, 'status.update', reads)
    },
    'status.deleted': (a) => streaming.publicDelete(a),

    'filters.changed': (a) => streaming.filtersChanged(a.accountId),

    // Announcements go to everyone who streams (Mastodon's PublishScheduledAnnouncementWorker and friends).
    'announcement.published': async (a) => {
      const row: AnnouncementRow | undefined = await db('announcements')
        .where({ id: a.announcementId, published: true })
        .first()
      if (!row) return // withdrawn since
      const [entity] = await renderAnnouncements(db, urls, [row])
      await streaming.everyone('announcement', JSON.stringify(entity))
    },
    'announcement.deleted': (a) => streaming.everyone('announcement.delete', a.announcementId),
    'announcement.reaction': async (a) => {
      const [{ count }] = await db('announcement_reactions')
        .where({ announcement_id: a.announcementId, name: a.name })
        .count('* as count')
      const payload = { name: a.name, count: Number(count), announcement_id: a.announcementId }
      await streaming.everyone('announcement.reaction', JSON.stringify(payload))
    },
  }
}
