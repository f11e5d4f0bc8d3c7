import type { Knex } from '@roost/db'

/**
 * An endpoint is no longer unique: a POST with another user's endpoint used to delete that user's subscription
 * (issue #9, finding 9). Each token keeps its own row, as in Mastodon, whoever else names the same endpoint.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('subscriptions', (t) => {
    t.dropUnique(['endpoint'])
  })
}
