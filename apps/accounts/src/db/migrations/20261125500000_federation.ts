import type { Knex } from '@roost/db'

/**
 * Federation I (docs/federation.md): key pairs of local accounts and of the instance actor, remote accounts in the
 * same `accounts` table (Mastodon's layout: `domain` null means local), and the ActivityPub ids of follows and
 * follow requests, so that an Accept, Reject or Undo names the very Follow it answers.
 */
export async function up(db: Knex): Promise<void> {
  // Remote usernames and display names follow their server's rules, not ours; the local limits are checked in code.
  await db.raw('ALTER TABLE accounts ALTER COLUMN username TYPE text, ALTER COLUMN display_name TYPE text')
  await db.schema.alterTable('accounts', (t) => {
    /** Null for local accounts; the lower-cased `host[:port]` of a remote one. */
    t.text('domain')
    /** The remote actor's ActivityPub id, its profile page, inboxes and collections. */
    t.text('uri')
    t.text('url')
    t.text('inbox_url')
    t.text('shared_inbox_url')
    t.text('outbox_url')
    t.text('followers_url')
    t.text('following_url')
    t.text('featured_url')
    /** Person, Service, Group, Application or Organization. */
    t.string('actor_type', 32)
    /** PEM (SPKI) public key; for a remote account the key its `public_key_id` names. */
    t.text('public_key')
    t.text('public_key_id')
    /** PEM (PKCS#8) private key: local accounts only, made at sign-up or on first need. */
    t.text('private_key')
    t.text('avatar_remote_url')
    t.text('header_remote_url')
    /** When the remote actor document was last fetched (profiles are refreshed when older than a day). */
    t.timestamp('fetched_at', { useTz: true })
  })
  await db.raw('DROP INDEX accounts_username_lower')
  await db.raw(
    "CREATE UNIQUE INDEX accounts_username_domain_lower ON accounts (lower(username), coalesce(lower(domain), ''))",
  )
  await db.raw('CREATE UNIQUE INDEX accounts_uri ON accounts (uri) WHERE uri IS NOT NULL')
  await db.raw(
    'CREATE INDEX accounts_public_key_id ON accounts (public_key_id) WHERE public_key_id IS NOT NULL',
  )
  await db.raw('CREATE INDEX accounts_domain ON accounts (domain) WHERE domain IS NOT NULL')

  for (const table of ['follows', 'follow_requests'])
    await db.schema.alterTable(table, (t) => {
      /** The Follow activity's id (ours for local followers, the peer's for remote ones). */
      t.text('uri')
    })
  await db.raw('CREATE UNIQUE INDEX follows_uri ON follows (uri) WHERE uri IS NOT NULL')
  await db.raw('CREATE UNIQUE INDEX follow_requests_uri ON follow_requests (uri) WHERE uri IS NOT NULL')

  // The instance actor (`/actor`) signs the fetches the server makes on its own behalf; one row, made on first need.
  await db.schema.createTable('instance_actor', (t) => {
    t.integer('id').primary().checkIn(['1'])
    t.text('public_key').notNullable()
    t.text('private_key').notNullable()
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
}
