import type { Knex } from '@roost/db'

/**
 * Mastodon's AccountConversation (docs/statuses.md, "Conversations"): an account's view of a direct-message
 * thread with one set of participants, the direct statuses in it, the latest one, and whether it is unread. Kept by
 * the accounts worker.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('account_conversations', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE')
    /** The other participants, sorted (empty: a note to oneself). */
    t.specificType('participant_account_ids', 'bigint[]').notNullable().defaultTo('{}')
    t.specificType('status_ids', 'bigint[]').notNullable().defaultTo('{}')
    t.bigInteger('last_status_id')
    t.boolean('unread').notNullable().defaultTo(false)
    t.unique(['account_id', 'conversation_id', 'participant_account_ids'])
    t.index(['account_id', 'last_status_id'])
  })
}
