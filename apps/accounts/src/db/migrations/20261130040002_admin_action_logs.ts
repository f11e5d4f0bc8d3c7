import type { Knex } from '@roost/db'

/**
 * The audit log, as Mastodon's Admin::ActionLog (docs/moderation.md, "Audit log"): who (the staff account), what
 * (`action`, Mastodon's verbs: suspend, resolve, create, destroy…), on what (`target_type` and `target_id`, with
 * `human_identifier`, the target's name as it was then) and when. Written in the transaction of the action.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('admin_action_logs', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('account_id').references('accounts.id').onDelete('SET NULL')
    t.string('action', 64).notNullable()
    t.string('target_type', 64).notNullable()
    t.string('target_id', 64)
    t.text('human_identifier')
    t.jsonb('details')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['account_id', 'id'])
    t.index(['target_type', 'target_id'])
    t.index(['action', 'id'])
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('admin_action_logs')
}
