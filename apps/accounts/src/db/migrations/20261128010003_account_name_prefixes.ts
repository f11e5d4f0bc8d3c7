import type { Knex } from '@roost/db'

/**
 * Account search finds names by prefix through indexes (docs/performance.md, "Queries"): a username's and a display
 * name's lower case in byte order, so the names beginning with what was typed are one range of each. `ILIKE
 * 'term%'` could use no index, and each search, as often as a keystroke in an app's autocompletion, read every
 * known account.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('CREATE INDEX accounts_username_prefix ON accounts ((lower(username)) COLLATE "C")')
  await db.raw('CREATE INDEX accounts_display_name_prefix ON accounts ((lower(display_name)) COLLATE "C")')
}
