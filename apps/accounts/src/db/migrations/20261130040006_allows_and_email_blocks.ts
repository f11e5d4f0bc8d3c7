import type { Knex } from '@roost/db'

/**
 * Mastodon's DomainAllow (the servers federated with in limited federation mode), EmailDomainBlock (sign-ups
 * with an address at the domain or below it are refused) and CanonicalEmailBlock (an address's canonical form,
 * hashed: sign-ups whose address has that form are refused). docs/moderation.md.
 */
export async function up(db: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder) => t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
  await db.schema.createTable('domain_allows', (t) => {
    id(t)
    t.string('domain', 253).notNullable().unique()
    t.timestamps(true, true)
  })
  await db.schema.createTable('email_domain_blocks', (t) => {
    id(t)
    t.string('domain', 253).notNullable().unique()
    t.timestamps(true, true)
  })
  await db.schema.createTable('canonical_email_blocks', (t) => {
    id(t)
    t.string('canonical_email_hash', 64).notNullable().unique()
    t.bigInteger('reference_account_id').references('accounts.id').onDelete('SET NULL')
    t.timestamps(true, true)
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('canonical_email_blocks')
  await db.schema.dropTable('email_domain_blocks')
  await db.schema.dropTable('domain_allows')
}
