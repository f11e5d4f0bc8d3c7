import type { Knex } from '@roost/db'

/**
 * One subscription per endpoint again (issue #31; docs/security.md, "One push subscription per endpoint"): a POST
 * replaces every other row of its endpoint, and this unique index makes it a rule. Rows that two tokens left for
 * one endpoint while it was not unique are reduced to the newest (the highest id: each POST inserts a new row, so
 * the highest id is the last subscriber), its pushes' owner from now on. The table is locked against writes
 * (reads go on) for the rest of the migration's transaction, so that no POST of a push API still running the old
 * code adds a duplicate between the delete and the index.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('LOCK TABLE subscriptions IN EXCLUSIVE MODE')
  await db.raw(
    `DELETE FROM subscriptions older USING subscriptions newer
     WHERE newer.endpoint = older.endpoint AND newer.id > older.id`,
  )
  await db.raw('CREATE UNIQUE INDEX subscriptions_endpoint_unique ON subscriptions (endpoint)')
}
