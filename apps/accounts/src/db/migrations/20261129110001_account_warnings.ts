import type { Knex } from '@roost/db'

/**
 * Moderation decisions told to the account (Mastodon's `account_warnings`): the action a moderator took through
 * `POST /api/v1/admin/accounts/:id/action`, the text given with it, and who took it. The warning mail is made from
 * this row (docs/security.md, "Mail on moderation decisions").
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('account_warnings', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('account_id').references('accounts.id').onDelete('SET NULL')
    t.bigInteger('target_account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.string('action', 16).notNullable()
    t.text('text').notNullable().defaultTo('')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['target_account_id', 'id'])
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('account_warnings')
}
