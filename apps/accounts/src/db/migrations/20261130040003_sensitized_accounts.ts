import type { Knex } from '@roost/db'

/**
 * Mastodon's `accounts.sensitized_at` (docs/moderation.md, "Account actions"): a moderator's "sensitive" action
 * makes every status of the account with media read as sensitive until `unsensitive`.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('accounts', (t) => t.timestamp('sensitized_at', { useTz: true }))
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('accounts', (t) => t.dropColumn('sensitized_at'))
}
