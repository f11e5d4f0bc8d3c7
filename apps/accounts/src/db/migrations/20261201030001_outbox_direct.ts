import type { Knex } from '@roost/db'

/**
 * Outbox rows their writer publishes itself once its transaction commits (docs/activities.md, "Published by their
 * writer"): `direct` rows wake no relay (the NOTIFY goes out only for a statement that wrote another row), and
 * the relay takes them only when their writer has not published them within a few seconds.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('outbox', (t) => t.boolean('direct').notNullable().defaultTo(false))
  await db.raw(`
    DROP TRIGGER outbox_notify ON outbox;
    CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM new_rows WHERE NOT direct) THEN
        PERFORM pg_notify('outbox', '');
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER outbox_notify AFTER INSERT ON outbox REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
  `)
}

export async function down(db: Knex): Promise<void> {
  await db.raw(`
    DROP TRIGGER outbox_notify ON outbox;
    CREATE OR REPLACE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('outbox', '');
      RETURN NULL;
    END $$;
    CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();
  `)
  await db.schema.alterTable('outbox', (t) => t.dropColumn('direct'))
}
