import type { Knex } from '@roost/db'

/**
 * Mastodon's DomainBlock (docs/federation.md, "Domain blocks"): an admin's rule for a whole remote server and its
 * subdomains. `suspend` refuses everything from it and delivers nothing to it, `silence` limits its accounts,
 * `noop` only rejects media or reports.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('domain_blocks', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    /** Normalised: lower-case, punycode, no port. */
    t.text('domain').notNullable().unique()
    t.string('severity', 16).notNullable().defaultTo('silence')
    t.boolean('reject_media').notNullable().defaultTo(false)
    t.boolean('reject_reports').notNullable().defaultTo(false)
    t.text('private_comment')
    t.text('public_comment')
    t.boolean('obfuscate').notNullable().defaultTo(false)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
  await db.raw(
    "ALTER TABLE domain_blocks ADD CONSTRAINT domain_blocks_severity CHECK (severity IN ('silence', 'suspend', 'noop'))",
  )
}
