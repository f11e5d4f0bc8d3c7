import type { Knex } from '@roost/db'

/**
 * An index for every keyset listing, in the listing's order, so that page 1 and a page 20,000 rows deep cost the
 * same and neither depends on fresh statistics (docs/performance.md, "Queries"):
 *
 * - following, blocks, mutes: the relationship rows of one account by id (the unique (account_id,
 *   target_account_id) index does not give that order);
 * - favourites, bookmarks of one account, favourited_by of one status: by the row's id;
 * - reblogged_by: the boosts of one status by id;
 * - the public timeline: public statuses that are not boosts, by id.
 *
 * The indexes on `reblog_of_id` and `in_reply_to_id` become partial (most statuses are neither boosts nor
 * replies), so posting an ordinary status writes two index entries fewer.
 */
export async function up(db: Knex): Promise<void> {
  for (const table of ['follows', 'blocks', 'mutes', 'favourites', 'bookmarks'])
    await db.raw(`CREATE INDEX ${table}_account_id_id ON ${table} (account_id, id)`)
  await db.raw('DROP INDEX favourites_status_id_index')
  await db.raw('CREATE INDEX favourites_status_id_id ON favourites (status_id, id)')

  await db.raw('DROP INDEX statuses_reblog_of_id_account_id_index')
  await db.raw('DROP INDEX statuses_in_reply_to_id_index')
  await db.raw(
    'CREATE INDEX statuses_reblog_of_id_account_id ON statuses (reblog_of_id, account_id) WHERE reblog_of_id IS NOT NULL',
  )
  await db.raw(
    'CREATE INDEX statuses_reblog_of_id_id ON statuses (reblog_of_id, id) WHERE reblog_of_id IS NOT NULL',
  )
  await db.raw(
    'CREATE INDEX statuses_in_reply_to_id ON statuses (in_reply_to_id) WHERE in_reply_to_id IS NOT NULL',
  )
  await db.raw(
    "CREATE INDEX statuses_public_id ON statuses (id) WHERE visibility = 'public' AND reblog_of_id IS NULL",
  )
}
