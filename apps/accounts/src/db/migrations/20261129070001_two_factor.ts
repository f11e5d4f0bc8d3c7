import type { Knex } from '@roost/db'

/**
 * Two-factor sign-in, the sessions page and the change of e-mail address (docs/security.md, "Two-factor sign-in",
 * "Sessions and apps"):
 * - `users.otp_secret` (the TOTP secret, set when enrolment begins), `otp_enabled_at` (set once a first code
 *   proved the enrolment), `otp_last_step` (the last time step used, so a code is never accepted twice),
 *   `otp_backup_codes` (the recovery codes' scrypt hashes, each removed when used);
 * - `webauthn_credentials`: the security keys of a user (public key and signature counter);
 * - `users.unconfirmed_email`: an address asked for, changed to only when its link is opened;
 * - `user_sign_ins`: the addresses and browsers a user signed in from, for the new sign-in mail;
 * - `oauth_access_tokens.last_used_at`: for the sessions page (moved at most once an hour).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('users', (t) => {
    t.text('otp_secret')
    t.timestamp('otp_enabled_at', { useTz: true })
    t.bigInteger('otp_last_step')
    t.specificType('otp_backup_codes', 'text[]').notNullable().defaultTo('{}')
    t.text('unconfirmed_email')
  })
  await db.schema.createTable('webauthn_credentials', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.text('credential_id').notNullable().unique()
    t.binary('public_key').notNullable()
    t.bigInteger('sign_count').notNullable().defaultTo(0)
    t.string('nickname', 100).notNullable()
    t.specificType('transports', 'text[]').notNullable().defaultTo('{}')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('last_used_at', { useTz: true })
    t.index(['user_id'])
  })
  await db.schema.createTable('user_sign_ins', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE')
    t.string('ip', 64).notNullable()
    t.string('user_agent', 512).notNullable().defaultTo('')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.index(['user_id', 'ip', 'created_at'])
  })
  await db.schema.alterTable('oauth_access_tokens', (t) => {
    t.timestamp('last_used_at', { useTz: true })
  })
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('oauth_access_tokens', (t) => t.dropColumn('last_used_at'))
  await db.schema.dropTable('user_sign_ins')
  await db.schema.dropTable('webauthn_credentials')
  await db.schema.alterTable('users', (t) => {
    t.dropColumn('otp_secret')
    t.dropColumn('otp_enabled_at')
    t.dropColumn('otp_last_step')
    t.dropColumn('otp_backup_codes')
    t.dropColumn('unconfirmed_email')
  })
}
