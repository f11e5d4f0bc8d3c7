import type { Knex } from '@roost/db'

/**
 * Notification ids come from a plain sequence, as Mastodon's do, not from snowflakes: the Web Push payload carries
 * `notification_id` as a JSON number, and apps (Mastodon's own service worker, masto.js users) parse it with
 * `JSON.parse`, which rounds anything above 2^53, so they fetched a notification that does not exist. Rows that
 * already exist keep their ids and new ones continue after the largest, so listings stay in id order.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('CREATE SEQUENCE notifications_id_seq OWNED BY notifications.id')
  await db.raw(
    "SELECT setval('notifications_id_seq', COALESCE((SELECT max(id) FROM notifications), 1), EXISTS (SELECT 1 FROM notifications))",
  )
  await db.raw("ALTER TABLE notifications ALTER COLUMN id SET DEFAULT nextval('notifications_id_seq')")
}
