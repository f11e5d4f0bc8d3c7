import type { Knex } from '@roost/db'

/**
 * The server's settings an admin changes through the API (docs/moderation.md, "Server settings"), as Mastodon's
 * Setting rows: one row per key, a JSON value. A key without a row takes its default from the environment
 * (INSTANCE_TITLE, REGISTRATIONS_MODE…), so a server keeps its configured values until an admin changes them.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('server_settings', (t) => {
    t.string('key', 64).primary()
    t.jsonb('value').notNullable()
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('server_settings')
}
