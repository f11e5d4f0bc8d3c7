import type { Knex } from '@roost/db'

/**
 * Relationships (follows, follow requests, blocks, mutes), statuses with their media, mentions, hashtags,
 * favourites and pins, and notifications. Every row id is a snowflake, so listings page by id.
 */
export async function up(db: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder) => t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
  const account = (t: Knex.CreateTableBuilder, column: string) =>
    t.bigInteger(column).notNullable().references('accounts.id').onDelete('CASCADE')
  const pair = (name: string, extra: (t: Knex.CreateTableBuilder) => void = () => {}) =>
    db.schema.createTable(name, (t) => {
      id(t)
      account(t, 'account_id')
      account(t, 'target_account_id')
      extra(t)
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
      t.unique(['account_id', 'target_account_id'])
      t.index(['target_account_id', 'id'])
    })
  const followOptions = (t: Knex.CreateTableBuilder) => {
    t.boolean('show_reblogs').notNullable().defaultTo(true)
    t.boolean('notify').notNullable().defaultTo(false)
    t.jsonb('languages')
  }
  await pair('follows', followOptions)
  await pair('follow_requests', followOptions)
  await pair('blocks')
  // A timed mute ends at expires_at: queries treat it as absent from then on, and it is deleted lazily.
  await pair('mutes', (t) => {
    t.boolean('hide_notifications').notNullable().defaultTo(true)
    t.timestamp('expires_at', { useTz: true })
  })

  await db.schema.createTable('statuses', (t) => {
    id(t)
    account(t, 'account_id')
    t.text('text').notNullable().defaultTo('')
    t.text('spoiler_text').notNullable().defaultTo('')
    t.boolean('sensitive').notNullable().defaultTo(false)
    t.string('visibility', 16).notNullable()
    t.string('language', 8)
    t.bigInteger('in_reply_to_id').references('statuses.id').onDelete('SET NULL')
    t.bigInteger('in_reply_to_account_id')
    t.bigInteger('reblog_of_id').references('statuses.id').onDelete('CASCADE')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['account_id', 'id'])
    t.index(['reblog_of_id', 'account_id'])
    t.index(['in_reply_to_id'])
  })

  await db.schema.createTable('media_attachments', (t) => {
    id(t)
    account(t, 'account_id')
    t.bigInteger('status_id').references('statuses.id').onDelete('SET NULL')
    t.string('file').notNullable()
    t.string('content_type', 32).notNullable()
    t.text('description')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['status_id'])
  })

  await db.schema.createTable('mentions', (t) => {
    t.bigInteger('status_id').notNullable().references('statuses.id').onDelete('CASCADE')
    account(t, 'account_id')
    t.primary(['status_id', 'account_id'])
    t.index(['account_id'])
  })

  await db.schema.createTable('status_tags', (t) => {
    t.bigInteger('status_id').notNullable().references('statuses.id').onDelete('CASCADE')
    /** Lower-cased hashtag name without the '#'. */
    t.string('name', 100).notNullable()
    t.primary(['status_id', 'name'])
    t.index(['name'])
  })

  for (const name of ['favourites', 'status_pins'])
    await db.schema.createTable(name, (t) => {
      id(t)
      account(t, 'account_id')
      t.bigInteger('status_id').notNullable().references('statuses.id').onDelete('CASCADE')
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
      t.unique(['account_id', 'status_id'])
      t.index(['status_id'])
    })

  await db.schema.createTable('notifications', (t) => {
    // A plain sequence, not a snowflake: the push payload carries `notification_id` as a JSON number (as
    // Mastodon's does), and clients parse it into a double, exact only below 2^53.
    t.bigIncrements('id').primary()
    /** The recipient. */
    account(t, 'account_id')
    account(t, 'from_account_id')
    t.string('type', 32).notNullable()
    t.bigInteger('status_id').references('statuses.id').onDelete('CASCADE')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['account_id', 'id'])
  })
}
