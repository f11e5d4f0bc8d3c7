import type { Knex } from '@roost/db'

/**
 * When the worker last read a remote account's outbox (`accounts.backfilled_at`: docs/federation.md, "Backfill of
 * remote profiles") and a remote status's replies (`statuses.replies_fetched_at`: "Complete threads"), so that
 * neither is read again sooner than its limit allows. Nullable, no default: adding them rewrites nothing.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('accounts', (t) => {
    t.timestamp('backfilled_at', { useTz: true })
  })
  await db.schema.alterTable('statuses', (t) => {
    t.timestamp('replies_fetched_at', { useTz: true })
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('statuses', (t) => t.dropColumn('replies_fetched_at'))
  await db.schema.alterTable('accounts', (t) => t.dropColumn('backfilled_at'))
}
