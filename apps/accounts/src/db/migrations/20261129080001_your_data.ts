import type { Knex } from '@roost/db'

/**
 * Invites, archives, imports and self-deletion (docs/security.md, "Your data"; issue #35, items 5 to 7).
 *
 * - `invites`: Mastodon's Invite (a code, an optional maximum of uses and expiry); a user remembers the invite it
 *   signed up with (`users.invite_id`), which let it in while registrations were closed or skip approval.
 * - `archives`: Mastodon's Backup: one zip per request, built by the accounts worker, kept for a week.
 * - `imports`: Mastodon's BulkImport with its rows: the CSV's rows wait in `rows` (at most 20,000), the worker
 *   records its progress and the rows that failed.
 * - `accounts.deleted_at`: the account was deleted by its owner; the row stays (suspended, emptied) so that the
 *   username is never taken again and the Delete of the actor can still be signed (Mastodon's reserve_username).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('invites', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.string('code', 32).notNullable().unique()
    t.integer('max_uses')
    t.integer('uses').notNullable().defaultTo(0)
    t.timestamp('expires_at', { useTz: true })
    t.text('comment')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['user_id'])
  })
  await db.schema.alterTable('users', (t) => {
    t.bigInteger('invite_id').references('invites.id').onDelete('SET NULL')
  })
  await db.schema.createTable('archives', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.string('state', 16).notNullable().defaultTo('pending')
    t.text('file')
    t.bigInteger('size')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('finished_at', { useTz: true })
    t.index(['user_id', 'created_at'])
  })
  await db.schema.createTable('imports', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.string('type', 32).notNullable()
    t.boolean('overwrite').notNullable().defaultTo(false)
    t.text('original_filename')
    t.string('state', 16).notNullable().defaultTo('queued')
    t.jsonb('rows').notNullable()
    t.integer('total_items').notNullable().defaultTo(0)
    t.integer('processed_items').notNullable().defaultTo(0)
    t.integer('imported_items').notNullable().defaultTo(0)
    t.jsonb('failures').notNullable().defaultTo('[]')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('finished_at', { useTz: true })
    t.index(['account_id', 'created_at'])
  })
  await db.schema.alterTable('accounts', (t) => {
    t.timestamp('deleted_at', { useTz: true })
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('accounts', (t) => t.dropColumn('deleted_at'))
  await db.schema.dropTable('imports')
  await db.schema.dropTable('archives')
  await db.schema.alterTable('users', (t) => t.dropColumn('invite_id'))
  await db.schema.dropTable('invites')
}
