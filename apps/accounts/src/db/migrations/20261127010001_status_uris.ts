import type { Knex } from '@roost/db'

/**
 * Federation II (docs/federation.md): the ActivityPub id (`uri`) and page (`url`) of a status from another server;
 * null for local statuses, whose ids and pages are derived from their author and id (federation/uris.ts).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('statuses', (t) => {
    t.text('uri')
    t.text('url')
  })
  await db.raw('CREATE UNIQUE INDEX statuses_uri ON statuses (uri) WHERE uri IS NOT NULL')
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('statuses', (t) => {
    t.dropColumn('url')
    t.dropColumn('uri')
  })
}
