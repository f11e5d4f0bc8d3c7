import type { Knex } from '@roost/db'

/** The app a status was posted with (Mastodon's `statuses.application_id`), shown to its author as `application`. */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('statuses', (t) => {
    t.bigInteger('application_id').references('oauth_applications.id').onDelete('SET NULL')
  })
}
