import type { Knex } from '@roost/db'

/**
 * Mastodon's AccountModerationNote and ReportNote: what moderators write to each other about an account or a
 * report, never shown to its subject (docs/moderation.md, "Moderation notes"). A note goes with its author, its
 * account or its report.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('account_moderation_notes', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('target_account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.text('content').notNullable()
    t.timestamps(true, true)
    t.index(['target_account_id', 'id'])
    t.index(['account_id'])
  })
  await db.schema.createTable('report_notes', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('report_id').notNullable().references('reports.id').onDelete('CASCADE')
    t.text('content').notNullable()
    t.timestamps(true, true)
    t.index(['report_id', 'id'])
    t.index(['account_id'])
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('report_notes')
  await db.schema.dropTable('account_moderation_notes')
}
