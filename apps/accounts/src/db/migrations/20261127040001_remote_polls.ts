import type { Knex } from '@roost/db'

/**
 * Federation II, polls of other servers (docs/federation.md, "Polls"): a Question may come without an end, which
 * Mastodon shows as a poll that never ends.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE polls ALTER COLUMN expires_at DROP NOT NULL')
}
