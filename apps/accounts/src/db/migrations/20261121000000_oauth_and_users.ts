import type { Knex } from '@roost/db'
import { SNOWFLAKE_FUNCTION_SQL } from '@roost/db'

/** Accounts and users (enough to sign in), the OAuth server's tables and the event outbox. */
export async function up(db: Knex): Promise<void> {
  await db.raw(SNOWFLAKE_FUNCTION_SQL)
  const id = (t: Knex.CreateTableBuilder) => t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))

  await db.schema.createTable('accounts', (t) => {
    id(t)
    t.string('username', 30).notNullable()
    t.string('display_name', 30).notNullable().defaultTo('')
    t.text('note').notNullable().defaultTo('')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
  await db.raw('CREATE UNIQUE INDEX accounts_username_lower ON accounts (lower(username))')

  await db.schema.createTable('users', (t) => {
    id(t)
    t.bigInteger('account_id').notNullable().unique().references('accounts.id').onDelete('CASCADE')
    t.string('email', 320).notNullable()
    t.string('encrypted_password').notNullable()
    t.string('locale', 16).notNullable().defaultTo('en')
    t.string('role', 16).notNullable().defaultTo('user')
    t.boolean('approved').notNullable().defaultTo(true)
    t.boolean('disabled').notNullable().defaultTo(false)
    t.timestamp('confirmed_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
  await db.raw('CREATE UNIQUE INDEX users_email_lower ON users (lower(email))')

  await db.schema.createTable('oauth_applications', (t) => {
    id(t)
    t.string('name', 60).notNullable()
    t.string('website', 2000)
    t.text('redirect_uri').notNullable()
    t.text('scopes').notNullable()
    t.string('client_id', 64).notNullable().unique()
    t.string('client_secret', 64).notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })

  await db.schema.createTable('oauth_access_grants', (t) => {
    id(t)
    t.bigInteger('application_id').notNullable().references('oauth_applications.id').onDelete('CASCADE')
    t.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.string('code_digest', 64).notNullable().unique()
    t.text('redirect_uri').notNullable()
    t.text('scopes').notNullable()
    t.string('code_challenge', 128)
    t.timestamp('expires_at', { useTz: true }).notNullable()
    t.timestamp('used_at', { useTz: true })
  })

  await db.schema.createTable('oauth_access_tokens', (t) => {
    id(t)
    t.bigInteger('application_id').notNullable().references('oauth_applications.id').onDelete('CASCADE')
    t.bigInteger('user_id').references('users.id').onDelete('CASCADE')
    t.text('scopes').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('revoked_at', { useTz: true })
    t.index(['user_id'])
    t.index(['application_id'])
  })

  // Events leave through here: written in the same transaction as the change they describe, published by the
  // relay (src/outbox/relay.ts), so a crash or a Redis outage between commit and publish loses nothing.
  await db.schema.createTable('outbox', (t) => {
    id(t)
    t.string('queue', 64).notNullable()
    t.string('job_name', 64).notNullable()
    t.jsonb('payload').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('published_at', { useTz: true })
  })
  await db.raw('CREATE INDEX outbox_unpublished ON outbox (id) WHERE published_at IS NULL')
}
