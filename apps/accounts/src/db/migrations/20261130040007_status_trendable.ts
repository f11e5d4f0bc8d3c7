import type { Knex } from '@roost/db'

/**
 * Mastodon's `statuses.trendable` (docs/moderation.md, "Trends review"): null until a moderator reviews the post
 * in the trends, then true (approved) or false (rejected: never trends). A nullable column, added without a rewrite.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('statuses', (t) => t.boolean('trendable'))
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('statuses', (t) => t.dropColumn('trendable'))
}
