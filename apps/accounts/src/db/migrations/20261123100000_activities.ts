import type { Knex } from '@roost/db'

/**
 * The activities pipeline (docs/activities.md): a notification is keyed by the activity that caused it, so a
 * replayed activity never notifies twice; and every outbox insert wakes the relay through NOTIFY, delivered at
 * commit (one per transaction, however many rows it wrote).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('notifications', (t) => {
    /** The row behind it: the favourite, follow, follow request, or status (mention, status, reblog). */
    t.bigInteger('activity_id')
    t.unique(['account_id', 'type', 'activity_id'])
  })
  await db.raw(`
    CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('outbox', '');
      RETURN NULL;
    END $$;
    CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
  `)
}
