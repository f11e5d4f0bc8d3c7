import type { Knex } from '@roost/db'

/** Filters v2 (docs/discovery.md, "Filters"): a user's filters, their keywords and the statuses they name. */
export async function up(db: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder) => t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
  await db.schema.createTable('custom_filters', (t) => {
    id(t)
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.text('title').notNullable()
    /** Non-empty subset of home, notifications, public, thread, account. */
    t.specificType('context', 'text[]').notNullable()
    /** warn, hide or blur. */
    t.string('filter_action', 8).notNullable().defaultTo('warn')
    t.timestamp('expires_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['account_id'])
  })
  await db.schema.createTable('custom_filter_keywords', (t) => {
    id(t)
    t.bigInteger('custom_filter_id').notNullable().references('custom_filters.id').onDelete('CASCADE')
    t.text('keyword').notNullable()
    t.boolean('whole_word').notNullable().defaultTo(true)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['custom_filter_id'])
  })
  await db.schema.createTable('custom_filter_statuses', (t) => {
    id(t)
    t.bigInteger('custom_filter_id').notNullable().references('custom_filters.id').onDelete('CASCADE')
    t.bigInteger('status_id').notNullable().references('statuses.id').onDelete('CASCADE')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.unique(['custom_filter_id', 'status_id'])
    t.index(['status_id'])
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('custom_filter_statuses')
  await db.schema.dropTable('custom_filter_keywords')
  await db.schema.dropTable('custom_filters')
}
