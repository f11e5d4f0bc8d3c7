import type { Knex } from '@roost/db'

/**
 * Every signature scheme in use (docs/federation.md, "HTTP signatures" and "Forwarded activities"):
 * `http_signature_schemes` remembers, per host, the HTTP signature scheme its last signed request that was answered
 * succeeded with (double-knocking: the other scheme is tried after a 401), shared by every process; and a remote
 * actor's `assertion_keys` are its Ed25519 keys (`assertionMethod` Multikeys: `[{id, publicKeyMultibase}]`), which
 * verify the FEP-8b32 integrity proofs of the objects it signs.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('http_signature_schemes', (t) => {
    t.text('domain').primary()
    t.text('scheme').notNullable()
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
  await db.raw(
    `ALTER TABLE http_signature_schemes ADD CONSTRAINT http_signature_schemes_scheme CHECK (scheme IN ('draft-cavage', 'rfc9421'))`,
  )
  await db.schema.alterTable('accounts', (t) => {
    t.jsonb('assertion_keys').notNullable().defaultTo('[]')
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('accounts', (t) => t.dropColumn('assertion_keys'))
  await db.schema.dropTable('http_signature_schemes')
}
