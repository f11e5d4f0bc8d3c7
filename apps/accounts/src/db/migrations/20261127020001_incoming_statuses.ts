import type { Knex } from '@roost/db'

/**
 * Federation II, incoming (docs/federation.md, "Incoming statuses"): the ids of activities already handled, so a
 * replay does nothing; the URI of a remote boost (its Announce); and remote media, linked by URL.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('inbox_activities', (t) => {
    t.text('uri').primary()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
  await db.schema.alterTable('media_attachments', (t) => {
    t.text('remote_url')
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('media_attachments', (t) => {
    t.dropColumn('remote_url')
  })
  await db.schema.dropTable('inbox_activities')
}
