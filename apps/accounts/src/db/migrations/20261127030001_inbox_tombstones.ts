import type { Knex } from '@roost/db'

/**
 * Federation I, inbox ordering (docs/federation.md, "Inboxes"): the ids of activities a remote actor undid, so that
 * a Follow or Block processed after its Undo (the inbox queue runs an actor's jobs concurrently) does nothing.
 * Kept a day, as Mastodon keeps its `delete_upon_arrival` marks for hours.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('inbox_tombstones', (t) => {
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.text('uri').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.primary(['account_id', 'uri'])
    t.index(['created_at'])
  })
}
