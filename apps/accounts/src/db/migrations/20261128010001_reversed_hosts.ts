import type { Knex } from '@roost/db'

/**
 * A user's domain block finds the accounts it covers through an index (docs/performance.md, "Queries"): an account
 * domain's host, reversed, in byte order (`reversedHost` in domain/relationships.ts), so that a host and all its
 * subdomains are one range of the index. Without it, each listing of a user who blocks a domain compared every
 * known account's domain with the block.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(
    `CREATE INDEX accounts_reversed_host ON accounts ((reverse(regexp_replace(lower(domain), ':[0-9]+$', ''))) COLLATE "C")
     WHERE domain IS NOT NULL`,
  )
}
