import type { Knex } from '@roost/db'

/**
 * Quote posts (docs/statuses.md, "Quotes"; docs/federation.md, "Quotes"), as Mastodon 4.5's `quotes` table: one
 * row per quoting status, with the quoted status (null once it is gone), its state (pending, accepted, rejected,
 * revoked), whether it came in a legacy form (`quoteUri`, `_misskey_quote`, `quoteUrl`), the QuoteRequest's id
 * (`activity_uri`) and, for a quote of a remote post, the stamp that authorises it (`approval_uri`). A status's
 * quote policy (`quote_automatic`, `quote_manual`: Mastodon's flags as their names) and a user's default one.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('quotes', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('status_id').notNullable().unique().references('statuses.id').onDelete('CASCADE')
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('quoted_status_id').references('statuses.id').onDelete('SET NULL')
    t.bigInteger('quoted_account_id').references('accounts.id').onDelete('SET NULL')
    t.string('state', 16).notNullable().defaultTo('pending')
    t.boolean('legacy').notNullable().defaultTo(false)
    t.text('quoted_uri')
    t.text('activity_uri').unique()
    t.text('approval_uri')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['quoted_status_id', 'id'])
    t.index(['quoted_account_id'])
  })
  await db.schema.alterTable('statuses', (t) => {
    t.specificType('quote_automatic', 'text[]').notNullable().defaultTo('{}')
    t.specificType('quote_manual', 'text[]').notNullable().defaultTo('{}')
  })
  await db.schema.alterTable('users', (t) => {
    t.string('default_quote_policy', 16).notNullable().defaultTo('public')
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => t.dropColumn('default_quote_policy'))
  await db.schema.alterTable('statuses', (t) => {
    t.dropColumn('quote_manual')
    t.dropColumn('quote_automatic')
  })
  await db.schema.dropTable('quotes')
}
