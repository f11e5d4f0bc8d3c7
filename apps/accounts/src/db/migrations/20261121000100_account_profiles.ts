import type { Knex } from '@roost/db'

/** The rest of Mastodon's Account: profile settings, media, moderation state and cached counters. */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('accounts', (t) => {
    t.boolean('locked').notNullable().defaultTo(false)
    t.boolean('bot').notNullable().defaultTo(false)
    t.boolean('discoverable').notNullable().defaultTo(true)
    t.boolean('indexable').notNullable().defaultTo(false)
    t.boolean('hide_collections').notNullable().defaultTo(false)
    /** `[{ name, value, verified_at }]`, at most four. */
    t.jsonb('fields').notNullable().defaultTo('[]')
    /** File names under MEDIA_DIR; null means the default image. */
    t.string('avatar_file')
    t.string('header_file')
    t.timestamp('suspended_at', { useTz: true })
    t.timestamp('silenced_at', { useTz: true })
    // Counters kept by the code that changes follows and statuses, as Mastodon's account_stats.
    t.integer('followers_count').notNullable().defaultTo(0)
    t.integer('following_count').notNullable().defaultTo(0)
    t.integer('statuses_count').notNullable().defaultTo(0)
    t.timestamp('last_status_at', { useTz: true })
  })
  await db.schema.alterTable('users', (t) => {
    t.string('default_privacy', 16).notNullable().defaultTo('public')
    t.boolean('default_sensitive').notNullable().defaultTo(false)
    t.string('default_language', 8)
    t.text('sign_up_reason')
  })
}
