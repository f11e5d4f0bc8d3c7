import type { Knex } from '@roost/db'

/**
 * Relays (docs/federation.md, "Relays"), as Mastodon's `relays` table: the inbox an admin added, the state of the
 * instance actor's Follow of it (`idle` while disabled, `pending`, `accepted`, `rejected`) and that Follow's id;
 * `actor_uri` and `delivery_inbox` are learned (a LitePub relay named by its actor, or the actor that accepted).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('relays', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.text('inbox_url').notNullable().unique()
    t.text('state').notNullable().defaultTo('idle')
    t.text('follow_activity_id').unique()
    t.text('actor_uri')
    t.text('delivery_inbox')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
  await db.raw(
    "ALTER TABLE relays ADD CONSTRAINT relays_state CHECK (state IN ('idle', 'pending', 'accepted', 'rejected'))",
  )
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('relays')
}
