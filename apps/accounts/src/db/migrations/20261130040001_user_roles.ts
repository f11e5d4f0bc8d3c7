import type { Knex } from '@roost/db'

/**
 * Mastodon's UserRole (docs/moderation.md, "Roles and permissions"): a name, a colour, a position (a role acts
 * only on roles below its own), whether profiles show it, and Mastodon's permission bits. `users.role` names the
 * role by its `key`: `user` (Mastodon's "everyone", id -99, whose bits every user holds), `moderator`, `admin`
 * and `owner` for the seeded roles (ids and bits of Mastodon's seeds), the id for a custom role. A deleted role's
 * users fall back to `user`.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('user_roles', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.string('key', 32).notNullable().unique()
    t.string('name', 100).notNullable().defaultTo('')
    t.string('color', 7).notNullable().defaultTo('')
    t.integer('position').notNullable().defaultTo(0)
    t.bigInteger('permissions').notNullable().defaultTo(0)
    t.boolean('highlighted').notNullable().defaultTo(false)
    t.timestamps(true, true)
  })
  await db('user_roles').insert([
    { id: -99, key: 'user', name: '', position: -1, permissions: 1 << 16, highlighted: false },
    { id: 1, key: 'moderator', name: 'Moderator', position: 10, permissions: 1308, highlighted: true },
    { id: 2, key: 'admin', name: 'Admin', position: 100, permissions: 983036, highlighted: true },
    { id: 3, key: 'owner', name: 'Owner', position: 1000, permissions: 1, highlighted: true },
  ])
  await db.schema.alterTable('users', (t) => {
    t.string('role', 32).notNullable().defaultTo('user').alter()
    t.foreign('role').references('user_roles.key').onUpdate('CASCADE').onDelete('SET DEFAULT')
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => t.dropForeign('role'))
  await db.schema.dropTable('user_roles')
}
