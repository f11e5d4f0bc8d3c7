import type { Knex } from '@roost/db'

/** Reports of accounts (and their statuses) to the server's moderators (docs/discovery.md, "Reports"). */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('reports', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('target_account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.specificType('status_ids', 'bigint[]').notNullable().defaultTo('{}')
    t.specificType('rule_ids', 'bigint[]')
    t.text('comment').notNullable().defaultTo('')
    t.string('category', 16).notNullable().defaultTo('other')
    t.boolean('forwarded').notNullable().defaultTo(false)
    t.bigInteger('assigned_account_id').references('accounts.id').onDelete('SET NULL')
    t.timestamp('action_taken_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['target_account_id'])
    t.index(['account_id'])
  })
}
