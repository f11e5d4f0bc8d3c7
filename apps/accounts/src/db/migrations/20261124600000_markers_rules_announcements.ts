import type { Knex } from '@roost/db'

/**
 * What apps read at start-up (docs/discovery.md): read markers, the server's rules and announcements with their
 * dismissals and reactions.
 */
export async function up(db: Knex): Promise<void> {
  const id = (t: Knex.CreateTableBuilder) => t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
  const account = (t: Knex.CreateTableBuilder) =>
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')

  // One row per user and timeline; `lock_version` is the optimistic lock Mastodon shows as `version`.
  await db.schema.createTable('markers', (t) => {
    id(t)
    t.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.string('timeline', 16).notNullable()
    t.bigInteger('last_read_id').notNullable()
    t.integer('lock_version').notNullable().defaultTo(0)
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.unique(['user_id', 'timeline'])
  })

  // Kept when removed (deleted_at), as Mastodon keeps them: reports name the rules they cite.
  await db.schema.createTable('rules', (t) => {
    t.bigIncrements('id').primary()
    t.integer('priority').notNullable().defaultTo(0)
    t.text('text').notNullable()
    t.text('hint').notNullable().defaultTo('')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('deleted_at', { useTz: true })
  })

  await db.schema.createTable('announcements', (t) => {
    id(t)
    t.text('text').notNullable()
    t.boolean('published').notNullable().defaultTo(false)
    t.boolean('all_day').notNullable().defaultTo(false)
    t.timestamp('starts_at', { useTz: true })
    t.timestamp('ends_at', { useTz: true })
    t.timestamp('published_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
  // A dismissal ("read"), as Mastodon's AnnouncementMute.
  await db.schema.createTable('announcement_mutes', (t) => {
    id(t)
    account(t)
    t.bigInteger('announcement_id').notNullable().references('announcements.id').onDelete('CASCADE')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.unique(['account_id', 'announcement_id'])
  })
  await db.schema.createTable('announcement_reactions', (t) => {
    id(t)
    account(t)
    t.bigInteger('announcement_id').notNullable().references('announcements.id').onDelete('CASCADE')
    t.string('name', 64).notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.unique(['account_id', 'announcement_id', 'name'])
    t.index(['announcement_id'])
  })
}
