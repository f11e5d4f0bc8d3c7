import { createHash } from 'node:crypto'
import type { Knex } from '@roost/db'

/**
 * E-mail blocks (docs/moderation.md, "E-mail blocks"), as Mastodon's EmailDomainBlock and CanonicalEmailBlock:
 * a sign-up is refused when its address is at a blocked domain (or below it), or when its canonical form (lower
 * case, dots and any `+tag` removed from the local part) hashes to a blocked hash.
 */

/** Mastodon's canonical e-mail hash: SHA-256 (hex) of the canonical address. */
export function canonicalEmailHash(email: string): string {
  const [local = '', domain = ''] = email.trim().toLowerCase().split('@')
  const canonical = `${local.replace(/\./g, '').split('+')[0]}@${domain}`
  return createHash('sha256').update(canonical).digest('hex')
}

/** The domain and its parents, `a.b.example` → `a.b.example`, `b.example`, `example`. */
const domainVariants = (domain: string) => {
  const labels = domain.toLowerCase().split('.').filter(Boolean)
  return labels.map((_, i) => labels.slice(i).join('.'))
}

/** Whether sign-ups from this address are refused. */
export async function emailBlocked(db: Knex, email: string): Promise<boolean> {
  const domain = email.split('@')[1] ?? ''
  const { rows } = await db.raw<{ rows: { blocked: boolean }[] }>(
    `SELECT EXISTS (SELECT 1 FROM email_domain_blocks WHERE domain = ANY(?))
         OR EXISTS (SELECT 1 FROM canonical_email_blocks WHERE canonical_email_hash = ?) AS blocked`,
    [domainVariants(domain), canonicalEmailHash(email)],
  )
  return !!rows[0]?.blocked
}
