import type { Knex } from '@roost/db'

/**
 * What other servers' content needs beyond notes (docs/federation.md, "Quotes", "Pinned posts and featured
 * hashtags", "Moved accounts"): an account's aliases (`alsoKnownAs`) and the account it moved to, a remote actor's
 * `featuredTags` collection, a status's quote policy (who may quote it, Mastodon's `quote_approval_policy`) and
 * the quotes (Mastodon's `quotes` table: the quoting status, the quoted one, and the state of its approval).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('accounts', (t) => {
    t.bigInteger('moved_to_account_id').references('accounts.id').onDelete('SET NULL')
    t.jsonb('also_known_as').notNullable().defaultTo('[]')
    t.text('featured_tags_url')
  })
  await db.schema.alterTable('statuses', (t) => {
    // 'public' | 'followers' | 'nobody', as the API's `quote_approval_policy`.
    t.string('quote_policy', 16).notNullable().defaultTo('public')
  })
  await db.schema.createTable('quotes', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('status_id').notNullable().unique().references('statuses.id').onDelete('CASCADE')
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('quoted_status_id').references('statuses.id').onDelete('SET NULL')
    t.bigInteger('quoted_account_id').references('accounts.id').onDelete('SET NULL')
    // pending | accepted | rejected | revoked (Mastodon's Quote#state; `deleted` is shown when the quoted post is gone).
    t.string('state', 16).notNullable().defaultTo('pending')
    t.boolean('legacy').notNullable().defaultTo(false)
    t.text('activity_uri')
    t.text('approval_uri')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['quoted_status_id', 'state'])
    t.index(['activity_uri'])
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('quotes')
  await db.schema.alterTable('statuses', (t) => t.dropColumn('quote_policy'))
  await db.schema.alterTable('accounts', (t) => {
    t.dropColumn('featured_tags_url')
    t.dropColumn('also_known_as')
    t.dropColumn('moved_to_account_id')
  })
}
