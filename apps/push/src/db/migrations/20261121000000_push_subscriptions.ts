import type { Knex } from '@roost/db'

/**
 * Web Push subscriptions: one per access token and one per endpoint (docs/mastodon-compatibility.md, "Web Push").
 * `id` is a plain sequence, not a snowflake: Mastodon's WebPushSubscription `id` is a JSON number, which must stay
 * below 2^53 to survive JavaScript clients.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('subscriptions', (t) => {
    t.bigIncrements('id').primary()
    t.text('endpoint').notNullable().unique()
    t.text('key_p256dh').notNullable()
    t.text('key_auth').notNullable()
    t.boolean('standard').notNullable().defaultTo(true)
    /** `{"<notification type>": true|false}`, only the kinds the client sent. */
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
