import type { Knex } from '@roost/db'
import { SNOWFLAKE_FUNCTION_SQL } from '@roost/db'

/** Web Push subscriptions: one per access token and one per endpoint (api-reference, "Roost decisions"). */
export async function up(db: Knex): Promise<void> {
  await db.raw(SNOWFLAKE_FUNCTION_SQL)
  await db.schema.createTable('subscriptions', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.text('endpoint').notNullable().unique()
    t.text('key_p256dh').notNullable()
    t.text('key_auth').notNullable()
    t.boolean('standard').notNullable().defaultTo(true)
    t.jsonb('alerts').notNullable().defaultTo('{}')
    t.string('policy', 16).notNullable().defaultTo('all')
    t.bigInteger('user_id').notNullable()
    t.bigInteger('access_token_id').notNullable().unique()
    /** The bearer token itself: Mastodon's push payload hands it back to the client. */
    t.text('access_token').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['user_id'])
  })
}
