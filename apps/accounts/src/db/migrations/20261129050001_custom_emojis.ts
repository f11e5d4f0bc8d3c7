import type { Knex } from '@roost/db'

/**
 * Custom emojis (docs/emoji.md), as Mastodon's `custom_emojis` table: local ones (`domain` null) that admins add,
 * and other servers' ones, one row per (shortcode, domain), whose image is copied by the worker (`file` empty
 * until then). `static_file` is a PNG of the first frame (Mastodon's `static` style). An account's emojis are kept
 * on the account (`accounts.emojis`, rendered rows) because its entity is rendered without a query; favourites
 * keep the Like's id (`uri`), so an Undo that names the Like only by its id finds it (docs/federation.md).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('custom_emojis', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.text('shortcode').notNullable()
    t.text('domain')
    t.text('file').notNullable().defaultTo('')
    t.text('static_file')
    t.text('content_type')
    t.text('uri')
    t.text('image_remote_url')
    // The Emoji's `updated` as its server last sent it; a new one means a new image to copy.
    t.timestamp('remote_updated_at', { useTz: true })
    t.boolean('needs_fetch').notNullable().defaultTo(false)
    t.boolean('visible_in_picker').notNullable().defaultTo(true)
    t.boolean('disabled').notNullable().defaultTo(false)
    t.text('category')
    t.timestamps(true, true)
  })
  await db.raw(
    "CREATE UNIQUE INDEX custom_emojis_shortcode_domain ON custom_emojis (shortcode, coalesce(domain, ''))",
  )
  await db.raw("CREATE INDEX custom_emojis_file ON custom_emojis (file) WHERE file <> ''")
  await db.raw(
    'CREATE INDEX custom_emojis_static_file ON custom_emojis (static_file) WHERE static_file IS NOT NULL',
  )
  await db.schema.alterTable('accounts', (t) => {
    t.jsonb('emojis').notNullable().defaultTo('[]')
  })
  await db.schema.alterTable('favourites', (t) => {
    t.text('uri')
  })
  await db.raw('CREATE INDEX favourites_uri ON favourites (uri) WHERE uri IS NOT NULL')
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX IF EXISTS favourites_uri')
  await db.schema.alterTable('favourites', (t) => t.dropColumn('uri'))
  await db.schema.alterTable('accounts', (t) => t.dropColumn('emojis'))
  await db.schema.dropTable('custom_emojis')
}
