import type { Knex } from '@roost/db'

/**
 * The local and the remote public timelines read their pages from indexes of their own (docs/performance.md,
 * "Queries"): on a federated server most public statuses come from other servers, and the local timeline walked
 * them all on statuses_public_id to find its own. A local status is one without a `uri` (federation/uris.ts).
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(
    "CREATE INDEX statuses_local_public_id ON statuses (id) WHERE visibility = 'public' AND reblog_of_id IS NULL AND uri IS NULL",
  )
  await db.raw(
    "CREATE INDEX statuses_remote_public_id ON statuses (id) WHERE visibility = 'public' AND reblog_of_id IS NULL AND uri IS NOT NULL",
  )
}
