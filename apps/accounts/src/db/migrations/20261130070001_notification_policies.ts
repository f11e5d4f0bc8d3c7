import type { Knex } from '@roost/db'

/**
 * Filtered notifications (docs/discovery.md, "Notification policy and requests"), as Mastodon 4.3+:
 * - `notification_policies`: one row per account that changed its policy (none means the defaults); each field is
 *   `accept`, `filter` or `drop`.
 * - `notifications.filtered`: a notification the policy filtered, kept out of the list, the unread count, streaming
 *   and Web Push until its sender's request is accepted.
 * - `notification_requests`: one per recipient and sender of filtered mentions, with the latest such status.
 * - `notification_permissions`: senders whose request was accepted, never filtered again.
 */
export async function up(db: Knex): Promise<void> {
  const policy = (t: Knex.CreateTableBuilder, name: string, fallback: string) =>
    t.string(name, 8).notNullable().defaultTo(fallback)
  await db.schema.createTable('notification_policies', (t) => {
    t.bigInteger('account_id').primary().references('accounts.id').onDelete('CASCADE')
    policy(t, 'for_not_following', 'accept')
    policy(t, 'for_not_followers', 'accept')
    policy(t, 'for_new_accounts', 'accept')
    policy(t, 'for_private_mentions', 'filter')
    policy(t, 'for_limited_accounts', 'filter')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
  await db.schema.alterTable('notifications', (t) => {
    t.boolean('filtered').notNullable().defaultTo(false)
  })
  await db.raw(
    `CREATE INDEX notifications_filtered ON notifications (account_id, from_account_id) WHERE filtered`,
  )
  await db.schema.createTable('notification_requests', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('from_account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('last_status_id').references('statuses.id').onDelete('SET NULL')
    t.bigInteger('notifications_count').notNullable().defaultTo(0)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.unique(['account_id', 'from_account_id'])
    t.index(['account_id', 'id'])
  })
  await db.schema.createTable('notification_permissions', (t) => {
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('from_account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.primary(['account_id', 'from_account_id'])
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('notification_permissions')
  await db.schema.dropTable('notification_requests')
  await db.raw('DROP INDEX notifications_filtered')
  await db.schema.alterTable('notifications', (t) => t.dropColumn('filtered'))
  await db.schema.dropTable('notification_policies')
}
