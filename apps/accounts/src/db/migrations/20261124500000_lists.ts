import type { Knex } from '@roost/db'

/**
 * Mastodon's List and ListAccount (docs/feeds.md, "Lists"). A member row points at the owner's follow of the
 * member, or at the owner's pending follow request (turned into the follow when it is accepted): ending the
 * follow or withdrawing the request removes the member (the foreign keys cascade), as in Mastodon. An owner may
 * be a member of their own list with neither.
 */
export async function up(db: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder) => t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))

  await db.schema.createTable('lists', (t) => {
    id(t)
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.text('title').notNullable()
    /** Which replies to others enter the list: `list` (to members), `followed` (to followed accounts), `none`. */
    t.string('replies_policy', 16).notNullable().defaultTo('list')
    /** Members' posts stay out of the owner's home feed. */
    t.boolean('exclusive').notNullable().defaultTo(false)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['account_id', 'id'])
  })

  await db.schema.createTable('list_accounts', (t) => {
    id(t)
    t.bigInteger('list_id').notNullable().references('lists.id').onDelete('CASCADE')
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('follow_id').references('follows.id').onDelete('CASCADE')
    t.bigInteger('follow_request_id').references('follow_requests.id').onDelete('CASCADE')
    t.unique(['list_id', 'account_id'])
    // Fan-out reads the lists an author is in, a page at a time.
    t.index(['account_id', 'id'])
    t.index(['follow_id'])
    t.index(['follow_request_id'])
  })
}
