import type { Knex } from '@roost/db'

/**
 * What the media cleanup reads (docs/media.md, "Cleaning the cache"): attachments never posted, by age; our
 * copies of remote attachments, by id; and, for each stored file the orphan sweep finds, whether a row names it.
 * Without these, every batch of the sweep walked the whole table.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(
    'CREATE INDEX media_attachments_unattached ON media_attachments (created_at) WHERE status_id IS NULL AND scheduled_status_id IS NULL',
  )
  await db.raw(
    "CREATE INDEX media_attachments_cached_remote ON media_attachments (id) WHERE remote_url IS NOT NULL AND file <> ''",
  )
  await db.raw("CREATE INDEX media_attachments_file ON media_attachments (file) WHERE file <> ''")
  await db.raw(
    'CREATE INDEX media_attachments_preview_file ON media_attachments (preview_file) WHERE preview_file IS NOT NULL',
  )
  await db.raw('CREATE INDEX accounts_avatar_file ON accounts (avatar_file) WHERE avatar_file IS NOT NULL')
  await db.raw('CREATE INDEX accounts_header_file ON accounts (header_file) WHERE header_file IS NOT NULL')
}

export async function down(db: Knex): Promise<void> {
  for (const index of [
    'media_attachments_unattached',
    'media_attachments_cached_remote',
    'media_attachments_file',
    'media_attachments_preview_file',
    'accounts_avatar_file',
    'accounts_header_file',
  ])
    await db.raw(`DROP INDEX IF EXISTS ${index}`)
}
