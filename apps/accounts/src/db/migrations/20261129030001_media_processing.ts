import type { Knex } from '@roost/db'

/**
 * What video, audio and animated GIF attachments need (docs/media.md, "Video, audio and GIFs"): `processing`, as
 * Mastodon's column (queued, in_progress, complete, failed; null on rows from before, which are complete), the
 * attachment's `type` once processing knows it (a GIF becomes `gifv`, a silent video too; null: from the content
 * type), a custom preview (`thumbnail_file`, Mastodon's `thumbnail`) and a remote attachment's preview URL
 * (`preview_remote_url`).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('media_attachments', (t) => {
    t.string('processing', 16)
    t.string('type', 16)
    t.string('thumbnail_file')
    t.text('preview_remote_url')
  })
  await db.raw(
    `ALTER TABLE media_attachments ADD CONSTRAINT media_attachments_processing
       CHECK (processing IN ('queued', 'in_progress', 'complete', 'failed'))`,
  )
  await db.raw(
    `ALTER TABLE media_attachments ADD CONSTRAINT media_attachments_type
       CHECK (type IN ('image', 'gifv', 'video', 'audio', 'unknown'))`,
  )
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('media_attachments', (t) => {
    t.dropColumn('preview_remote_url')
    t.dropColumn('thumbnail_file')
    t.dropColumn('type')
    t.dropColumn('processing')
  })
}
