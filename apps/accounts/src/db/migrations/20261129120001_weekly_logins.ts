import type { Knex } from '@roost/db'

/**
 * Who used the server in which week (docs/discovery.md, "Instance activity"), for GET /api/v1/instance/activity's
 * `logins`, as Mastodon's ActivityTracker keeps `activity:logins:<week>`: one row per user and week (the Monday it
 * began, UTC), written when a user's activity is noted (at most once a day). Rows older than the 12 weeks shown
 * are of no use and may be pruned.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('weekly_logins', (t) => {
    t.date('week').notNullable()
    t.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.primary(['week', 'user_id'])
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('weekly_logins')
}
