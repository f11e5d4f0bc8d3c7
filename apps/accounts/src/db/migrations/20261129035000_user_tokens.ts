import type { Knex } from '@roost/db'

/**
 * The one-time tokens of the links Roost e-mails (docs/security.md, "Links sent by mail"): confirming an address,
 * resetting a password. Only their SHA-256 digest is kept, so a copy of the database opens no account; each is
 * used at most once (`used_at`) and expires. A confirmation token names the address it confirms: changed since,
 * the token no longer confirms anything. `password_changed_at` ends the sign-in sessions of the OAuth pages begun
 * before a change or reset of the password.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('user_tokens', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.string('purpose', 32).notNullable()
    t.string('digest', 64).notNullable().unique()
    t.text('email')
    t.timestamp('expires_at', { useTz: true }).notNullable()
    t.timestamp('used_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['user_id', 'purpose'])
  })
  await db.schema.alterTable('users', (t) => {
    t.timestamp('password_changed_at', { useTz: true })
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => t.dropColumn('password_changed_at'))
  await db.schema.dropTable('user_tokens')
}
