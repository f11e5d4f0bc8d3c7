import type { Knex } from '@roost/db'

/** Mastodon's Poll and PollVote (docs/statuses.md): at most one poll per status, one row per chosen option. */
export async function up(db: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder) => t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
  const account = (t: Knex.CreateTableBuilder) =>
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')

  await db.schema.createTable('polls', (t) => {
    id(t)
    account(t)
    t.bigInteger('status_id').notNullable().unique().references('statuses.id').onDelete('CASCADE')
    t.specificType('options', 'text[]').notNullable()
    t.boolean('multiple').notNullable().defaultTo(false)
    t.boolean('hide_totals').notNullable().defaultTo(false)
    t.timestamp('expires_at', { useTz: true }).notNullable()
    // Kept by the vote transaction (which locks the poll row), so rendering never counts votes.
    t.specificType('cached_tallies', 'bigint[]').notNullable()
    t.bigInteger('votes_count').notNullable().defaultTo(0)
    t.bigInteger('voters_count').notNullable().defaultTo(0)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })

  await db.schema.createTable('poll_votes', (t) => {
    id(t)
    t.bigInteger('poll_id').notNullable().references('polls.id').onDelete('CASCADE')
    account(t)
    t.integer('choice').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.unique(['poll_id', 'account_id', 'choice'])
    t.index(['account_id'])
  })
}
