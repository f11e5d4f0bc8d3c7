import type { Knex } from '@roost/db'
import type { SignatureScheme } from './signatures'

/**
 * Double-knocking (docs/federation.md, "HTTP signatures"): which HTTP signature scheme a host accepted last, kept
 * in Postgres (`http_signature_schemes`) so that every process of the accounts service and its worker knows it.
 * A request to a host is signed with what it accepted before, or with HTTP_SIGNATURE_FIRST when nothing is known;
 * after a 401 it is signed again with the other scheme; a 2xx tells which one it accepts.
 */
export const otherScheme = (s: SignatureScheme): SignatureScheme =>
  s === 'rfc9421' ? 'draft-cavage' : 'rfc9421'

export async function knownScheme(db: Knex, domain: string): Promise<SignatureScheme | undefined> {
  const row = await db('http_signature_schemes').where({ domain }).first('scheme')
  return row?.scheme
}

/** Remembers that `domain` accepted `scheme` (written only when it changes). */
export async function rememberScheme(db: Knex, domain: string, scheme: SignatureScheme) {
  await db('http_signature_schemes')
    .insert({ domain, scheme, updated_at: db.fn.now() })
    .onConflict('domain')
    .merge(['scheme', 'updated_at'])
    .whereRaw('http_signature_schemes.scheme <> excluded.scheme')
}
