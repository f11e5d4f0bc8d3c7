import type { Knex } from '@roost/db'

/** What an image upload's processing learns (docs/mastodon-compatibility.md, "Statuses and media"): the `small` preview, `meta`, `blurhash`. */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('media_attachments', (t) => {
    t.string('preview_file')
    t.jsonb('meta')
    t.string('blurhash', 100)
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('media_attachments', (t) => {
    t.dropColumn('blurhash')
    t.dropColumn('meta')
    t.dropColumn('preview_file')
  })
}
