import type { Knex } from '@roost/db'

/**
 * What other servers' accounts need (docs/federation.md, "Pinned posts and featured hashtags", "Moved accounts"):
 * an account's aliases (`alsoKnownAs`) and the account it moved to, and a remote actor's `featuredTags` collection.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('accounts', (t) => {
    t.bigInteger('moved_to_account_id').references('accounts.id').onDelete('SET NULL')
    t.jsonb('also_known_as').notNullable().defaultTo('[]')
    t.text('featured_tags_url')
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('accounts', (t) => {
    t.dropColumn('featured_tags_url')
    t.dropColumn('also_known_as')
    t.dropColumn('moved_to_account_id')
  })
}
