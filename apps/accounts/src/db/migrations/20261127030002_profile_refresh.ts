import type { Knex } from '@roost/db'

/**
 * Federation I, periodic profile refreshes (docs/federation.md, "Remote accounts"): when the accounts worker last
 * tried to fetch a remote actor again, so that one that cannot be fetched is tried again an hour later, not at
 * every round.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('accounts', (t) => {
    t.timestamp('refresh_attempted_at', { useTz: true })
  })
}
