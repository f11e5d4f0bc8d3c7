import type { Knex } from '@roost/db'

/**
 * Admin webhooks, as Mastodon's Webhook (docs/moderation.md, "Webhooks"): a URL, the events it is sent
 * (`account.created`, `report.created`…), its signing secret (HMAC-SHA256 of the body, `X-Hub-Signature`) and
 * whether it is enabled.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('webhooks', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.text('url').notNullable()
    t.specificType('events', 'text[]').notNullable().defaultTo('{}')
    t.string('secret', 128).notNullable()
    t.boolean('enabled').notNullable().defaultTo(true)
    t.timestamps(true, true)
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('webhooks')
}
