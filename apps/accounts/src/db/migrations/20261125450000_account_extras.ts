import type { Knex } from '@roost/db'

/** Account extras (docs/discovery.md): private notes on accounts, endorsements and a user's domain blocks. */
export async function up(db: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder) => t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
  const account = (t: Knex.CreateTableBuilder, column: string) =>
    t.bigInteger(column).notNullable().references('accounts.id').onDelete('CASCADE')
  for (const name of ['account_notes', 'account_pins'])
    await db.schema.createTable(name, (t) => {
      id(t)
      account(t, 'account_id')
      account(t, 'target_account_id')
      if (name === 'account_notes') t.text('comment').notNullable()
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
      t.unique(['account_id', 'target_account_id'])
      t.index(['target_account_id'])
    })
  await db.schema.createTable('account_domain_blocks', (t) => {
    id(t)
    account(t, 'account_id')
    /** Lower-case, punycode. */
    t.string('domain', 253).notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.unique(['account_id', 'domain'])
  })
}
