import { createHash } from 'node:crypto'
import type { Knex } from '@roost/db'
import { unfollow } from '../domain/relationships'
import { normaliseDomain } from '../domain/account_extras'
import type { DomainBlockRow, DomainBlockSeverity } from '../db/rows'

/**
 * Admin domain blocks, Mastodon's DomainBlock (docs/federation.md, "Domain blocks"). A block covers its domain and
 * every subdomain, whatever the port; the most specific block wins. The inbox asks `isDomainBlocked` before it
 * stores anything, delivery before it sends, and authorized fetch before it serves.
 */

export const DOMAIN_BLOCK_SEVERITIES = [
  'silence',
  'suspend',
  'noop',
] as const satisfies readonly DomainBlockSeverity[]

/** What a block means for a domain, as Mastodon's DomainBlock class methods answer it. */
export interface DomainPolicy {
  /** Refuse everything from it, deliver nothing to it (Mastodon's `blocked?`). */
  suspend: boolean
  silence: boolean
  rejectMedia: boolean
  rejectReports: boolean
}

const NO_POLICY: DomainPolicy = { suspend: false, silence: false, rejectMedia: false, rejectReports: false }

/**
 * The domain a block is kept under: lower-case, punycode, without scheme, path or port (a block holds for every
 * port of its host). Undefined when it is not a host name.
 */
export const normaliseBlockedDomain = (value: string) => normaliseDomain(value)

/**
 * The domains whose blocks apply to `domain` (an account's `host[:port]`, a URL's host): itself and each parent,
 * most specific first (`a.b.example` → `a.b.example`, `b.example`, `example`).
 */
export function blockVariants(domain: string): string[] {
  const host = normaliseDomain(domain.trim().replace(/:\d{1,5}$/, ''))
  if (!host) return []
  const labels = host.split('.')
  return labels.map((_, i) => labels.slice(i).join('.'))
}

/** The block that applies to a domain (the most specific one), if any (Mastodon's DomainBlock.rule_for). */
export async function domainBlockFor(db: Knex, domain: string | null | undefined) {
  if (!domain) return undefined
  const variants = blockVariants(domain)
  if (!variants.length) return undefined
  return db<DomainBlockRow>('domain_blocks')
    .whereIn('domain', variants)
    .orderByRaw('char_length(domain) desc')
    .first()
}

/** What the blocks say of a domain; a domain with no block has no limits. */
export async function domainPolicy(db: Knex, domain: string | null | undefined): Promise<DomainPolicy> {
  const block = await domainBlockFor(db, domain)
  if (!block) return NO_POLICY
  if (block.severity === 'suspend')
    return { suspend: true, silence: false, rejectMedia: true, rejectReports: true }
  return {
    suspend: false,
    silence: block.severity === 'silence',
    rejectMedia: block.reject_media,
    rejectReports: block.reject_reports,
  }
}

/** Whether a domain is suspended: nothing from it is accepted, nothing is sent to it (Mastodon's `blocked?`). */
export async function isDomainBlocked(db: Knex, domain: string | null | undefined): Promise<boolean> {
  if (!domain) return false
  const variants = blockVariants(domain)
  if (!variants.length) return false
  // One statement: the most specific block, and limited federation mode (the `limited_federation_mode` setting,
  // docs/moderation.md, "Domain allows"): then only allowed domains and those below them are federated with.
  const { rows } = await db.raw<{
    rows: { severity: string | null; limited: boolean | null; allowed: boolean }[]
  }>(
    `SELECT (SELECT severity FROM domain_blocks WHERE domain = ANY(:variants)
              ORDER BY char_length(domain) DESC LIMIT 1) AS severity,
            (SELECT value = 'true'::jsonb FROM server_settings WHERE key = 'limited_federation_mode') AS limited,
            EXISTS (SELECT 1 FROM domain_allows WHERE domain = ANY(:variants)) AS allowed`,
    { variants },
  )
  const row = rows[0]!
  return row.severity === 'suspend' || (!!row.limited && !row.allowed)
}

/** Whether the host of a URL (an inbox, an actor, a key id) is suspended. A URL that does not parse is not. */
export async function isUrlBlocked(db: Knex, url: string): Promise<boolean> {
  let host
  try {
    host = new URL(url).host
  } catch {
    return false
  }
  return isDomainBlocked(db, host)
}

type Strictness = Pick<DomainBlockRow, 'severity' | 'reject_media' | 'reject_reports'>

/** Whether `block` limits at least as much as `other` (Mastodon's `stricter_than?`). */
export function stricterThan(block: Strictness, other: Strictness) {
  if (block.severity === 'suspend') return true
  if (other.severity === 'suspend') return false
  if (other.severity === 'silence' && block.severity === 'noop') return false
  return (block.reject_media || !other.reject_media) && (block.reject_reports || !other.reject_reports)
}

/** The domain as the public list shows it: with `obfuscate`, the middle half starred out, dots kept (Mastodon's). */
export function publicDomain(block: Pick<DomainBlockRow, 'domain' | 'obfuscate'>): string {
  if (!block.obfuscate) return block.domain
  const length = block.domain.length
  const visible = Math.floor(length / 4)
  return [...block.domain]
    .map((c, i) => (i > visible && i < length - visible && c !== '.' ? '*' : c))
    .join('')
}

/** SHA-256 of the domain in hex, so that an obfuscated entry can still be checked against a known domain. */
export const domainDigest = (domain: string) => createHash('sha256').update(domain).digest('hex')

/** The remote accounts a block covers: its domain and its subdomains, on any port. */
function coveredAccounts(trx: Knex, domain: string) {
  const like = domain.replace(/[\\%_]/g, (c) => `\\${c}`)
  return trx('accounts')
    .whereNotNull('domain')
    .where((q) =>
      q
        .where('domain', domain)
        .orWhere('domain', 'like', `${like}:%`)
        .orWhere('domain', 'like', `%.${like}`)
        .orWhere('domain', 'like', `%.${like}:%`),
    )
}

/**
 * What a new or changed block does to the accounts it covers (Mastodon's BlockDomainService): `suspend` suspends
 * them (stamped with the block's time, so that lifting it unsuspends only those) and severs every follow and follow
 * request between them and anyone; `silence` silences them. A block made milder undoes what the stricter one did.
 */
export async function applyDomainBlock(trx: Knex, block: DomainBlockRow) {
  await liftDomainBlock(trx, block)
  if (block.severity === 'silence')
    await coveredAccounts(trx, block.domain)
      .whereNull('silenced_at')
      .update({ silenced_at: block.created_at })
  if (block.severity !== 'suspend') return
  await coveredAccounts(trx, block.domain)
    .whereNull('suspended_at')
    .update({ suspended_at: block.created_at })
  const covered = coveredAccounts(trx, block.domain).select('id')
  for (const table of ['follows', 'follow_requests']) {
    const pairs: { account_id: string; target_account_id: string }[] = await trx(table)
      .whereIn('account_id', covered.clone())
      .orWhereIn('target_account_id', covered.clone())
      .select('account_id', 'target_account_id')
    for (const p of pairs) await unfollow(trx, p.account_id, p.target_account_id)
  }
}

/** Undoes what a block did to its accounts (Mastodon's UnblockDomainService): only what was stamped with its time. */
export async function liftDomainBlock(trx: Knex, block: Pick<DomainBlockRow, 'domain' | 'created_at'>) {
  await coveredAccounts(trx, block.domain)
    .where({ suspended_at: block.created_at })
    .update({ suspended_at: null })
  await coveredAccounts(trx, block.domain)
    .where({ silenced_at: block.created_at })
    .update({ silenced_at: null })
}
