import type { Knex } from '@roost/db'

/** Mastodon's IpBlock: a CIDR range, what it does, an optional expiry. Enforced by the gateway (ip-rules.ts). */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('ip_blocks', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.specificType('ip', 'cidr').notNullable().unique()
    t.string('severity', 32).notNullable()
    t.text('comment').notNullable().defaultTo('')
    t.timestamp('expires_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
  await db.raw(
    "ALTER TABLE ip_blocks ADD CONSTRAINT ip_blocks_severity CHECK (severity IN ('sign_up_requires_approval', 'sign_up_block', 'no_access'))",
  )
  // `ip >>= <address>` lookups at sign-up.
  await db.raw('CREATE INDEX ip_blocks_ip_gist ON ip_blocks USING gist (ip inet_ops)')
}
