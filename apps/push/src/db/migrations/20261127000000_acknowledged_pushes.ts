import type { Knex } from '@roost/db'

/**
 * The push service's acknowledgements, one row per delivery (`<notification>-<subscription>`), kept as long as a
 * notification is worth pushing. They lived in Redis; in Postgres they survive a Redis that comes back empty, when
 * the accounts worker publishes recent events again (docs/security.md, "Push delivery: nothing lost, nothing
 * twice"), so a replayed delivery finds it was already sent.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('acknowledged_pushes', (t) => {
    t.text('delivery_id').primary()
    t.timestamp('acknowledged_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['acknowledged_at'])
  })
}
