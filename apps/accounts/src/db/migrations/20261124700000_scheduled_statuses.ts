import type { Knex } from '@roost/db'

/**
 * Mastodon's ScheduledStatus (docs/statuses.md, "Scheduled statuses"): the parameters of a status to post at
 * `scheduled_at`, and the uploads it will carry (held by it until then).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('scheduled_statuses', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.timestamp('scheduled_at', { useTz: true }).notNullable()
    /** The request's parameters, as Mastodon's `params` shows them (docs/statuses.md). */
    t.jsonb('params').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['account_id', 'id'])
    t.index(['account_id', 'scheduled_at'])
    t.index(['scheduled_at'])
  })
  await db.schema.alterTable('media_attachments', (t) => {
    t.bigInteger('scheduled_status_id').references('scheduled_statuses.id').onDelete('SET NULL')
    t.index(['scheduled_status_id'])
  })
}
