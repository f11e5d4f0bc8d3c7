import type { Knex } from '@roost/db'

/** The app a user signed up through (Mastodon's `users.created_by_application_id`, shown to admins). */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => {
    t.bigInteger('created_by_application_id').references('oauth_applications.id').onDelete('SET NULL')
  })
}
