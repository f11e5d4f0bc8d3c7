import type { Knex } from '@roost/db'

/**
 * The follows whose follower asked to hear of new posts (`notify`), by the followed account: each new status asks
 * whether its author has one (docs/performance.md, "Queries"), and without this index that read walked every
 * follower of the author, on every post.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('CREATE INDEX follows_watched ON follows (target_account_id) WHERE notify')
}
