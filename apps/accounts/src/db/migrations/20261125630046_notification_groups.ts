import type { Knex } from '@roost/db'

/**
 * Grouped notifications (docs/discovery.md, "Grouped notifications"): the group a notification belongs to,
 * `<type>-<status id>-<hour>` or `<type>-<hour>`, null for types never grouped. Byte order (COLLATE "C") lets the
 * index answer "the latest group of this prefix" with a range scan.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('notifications', (t) => {
    t.specificType('group_key', 'text COLLATE "C"')
    t.index(['account_id', 'group_key'])
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('notifications', (t) => {
    t.dropIndex(['account_id', 'group_key'])
    t.dropColumn('group_key')
  })
}
