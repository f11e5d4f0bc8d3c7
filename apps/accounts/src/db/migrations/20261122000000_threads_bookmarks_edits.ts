import type { Knex } from '@roost/db'

/**
 * Threads, bookmarks and edits (docs/statuses.md): every status belongs to a conversation (its thread: a reply
 * takes its parent's), which accounts can mute; bookmarks; and Mastodon's StatusEdit history, with the edit
 * time and attachment order on the status itself.
 */
export async function up(db: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder) => t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
  const account = (t: Knex.CreateTableBuilder) =>
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
  const status = (t: Knex.CreateTableBuilder) =>
    t.bigInteger('status_id').notNullable().references('statuses.id').onDelete('CASCADE')

  // A thread. A table of its own (not just a number) so that federation can later record a remote thread's URI.
  await db.schema.createTable('conversations', (t) => {
    id(t)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
  await db.schema.alterTable('statuses', (t) => {
    t.bigInteger('conversation_id').references('conversations.id').onDelete('SET NULL')
    t.timestamp('edited_at', { useTz: true })
    /** The attachments in the order the author gave, once edited; null means in id order. */
    t.specificType('ordered_media_attachment_ids', 'bigint[]')
    t.index(['conversation_id'])
  })
  // Existing threads: each root opens a conversation (numbered as the root), its replies join it.
  await db.raw(`
    INSERT INTO conversations (id, created_at)
    SELECT id, created_at FROM statuses WHERE in_reply_to_id IS NULL AND reblog_of_id IS NULL`)
  await db.raw(`
    WITH RECURSIVE thread(id, root) AS (
      SELECT id, id FROM statuses WHERE in_reply_to_id IS NULL AND reblog_of_id IS NULL
      UNION ALL
      SELECT s.id, thread.root FROM statuses s JOIN thread ON s.in_reply_to_id = thread.id
    )
    UPDATE statuses SET conversation_id = thread.root FROM thread WHERE statuses.id = thread.id`)

  await db.schema.createTable('conversation_mutes', (t) => {
    id(t)
    account(t)
    t.bigInteger('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE')
    t.unique(['account_id', 'conversation_id'])
  })

  await db.schema.createTable('bookmarks', (t) => {
    id(t)
    account(t)
    status(t)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.unique(['account_id', 'status_id'])
    t.index(['status_id'])
  })

  // Mastodon's StatusEdit: one row per version, the first edit also saving the original.
  await db.schema.createTable('status_edits', (t) => {
    id(t)
    status(t)
    /** Who made the edit (the author; a moderator later). */
    t.bigInteger('account_id').references('accounts.id').onDelete('SET NULL')
    t.text('text').notNullable().defaultTo('')
    t.text('spoiler_text').notNullable().defaultTo('')
    t.boolean('sensitive').notNullable().defaultTo(false)
    t.specificType('ordered_media_attachment_ids', 'bigint[]')
    /** The descriptions the attachments had in this version, in the same order. */
    t.specificType('media_descriptions', 'text[]')
    /** The poll's options in this version, if it had a poll. */
    t.specificType('poll_options', 'text[]')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['status_id', 'id'])
  })
}
