import type { Knex } from '@roost/db'

/**
 * Reads of mutes and domain blocks that the Relationship entity shares with domain/relationships.ts and the
 * consumers (notifications, feeds, streaming).
 */

/**
 * A mute counts until it expires; expired rows are ignored everywhere and deleted lazily (`forgetExpiredMutes`,
 * domain/relationships.ts).
 */
export const activeMute = (db: Knex, alias = 'mutes') =>
  db.raw(`(??.expires_at IS NULL OR ??.expires_at > now())`, [alias, alias])

/**
 * Whether a user's domain block covers a remote account's `domain` (`host[:port]`): the host itself or a parent
 * domain of it is blocked, as Mastodon's domain blocks match subdomains.
 */
export function domainBlockCovers(blocked: string[], domain: string | null | undefined): boolean {
  if (!domain) return false
  const host = domain.replace(/:\d+$/, '').toLowerCase()
  return blocked.some((d) => host === d || host.endsWith(`.${d}`))
}

/** The domains `accountId` blocks (docs/discovery.md). */
export const blockedDomains = (db: Knex, accountId: string): Promise<string[]> =>
  db('account_domain_blocks').where({ account_id: accountId }).pluck('domain')
