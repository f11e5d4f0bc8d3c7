import type { Knex } from '@roost/db'

/**
 * Featured tags (hashtags an account shows on its profile) and dismissed follow suggestions
 * (docs/discovery.md, "Featured tags" and "Suggestions").
 */
export async function up(db: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder) => t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
  await db.schema.createTable('featured_tags', (t) => {
    id(t)
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('tag_id').notNullable().references('tags.id').onDelete('CASCADE')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.unique(['account_id', 'tag_id'])
  })
  await db.schema.createTable('suggestion_dismissals', (t) => {
    id(t)
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('target_account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.unique(['account_id', 'target_account_id'])
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('suggestion_dismissals')
  await db.schema.dropTable('featured_tags')
}
