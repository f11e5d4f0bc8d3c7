import type { Knex } from '@roost/db'

/**
 * Federation I, inboxes and delivery (docs/federation.md): the ActivityPub id of a block (a Block from another
 * server, so its Undo names it), and the hosts our deliveries keep failing to reach (Mastodon's
 * DeliveryFailureTracker and UnavailableDomain).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('blocks', (t) => {
    t.text('uri')
  })
  await db.schema.createTable('delivery_failures', (t) => {
    /** The lower-cased `host[:port]` of the inboxes. */
    t.text('domain').primary()
    /** The days (UTC) on which a delivery to the host ran out of attempts, since it last answered. */
    t.specificType('failure_days', 'date[]').notNullable().defaultTo('{}')
    /** Set once failures span enough days: nothing more is sent until the host is heard from again. */
    t.timestamp('unavailable_since', { useTz: true })
  })
}
