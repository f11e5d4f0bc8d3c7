import type { Knex } from '@roost/db'

/**
 * Home feeds (docs/feeds.md) go only to users active lately: Mastodon's `current_sign_in_at`, moved forward by
 * API requests at most once a day. Existing users count as active from now.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => {
    t.timestamp('current_sign_in_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
}
