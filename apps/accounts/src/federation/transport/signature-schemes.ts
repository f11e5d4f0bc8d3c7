import type { Knex } from '@roost/db'
import type { SignatureScheme } from './signatures'

/**
 * Double-knocking (docs/federation.md, "HTTP signatures"): which HTTP signature scheme a host accepted last, kept
 * in Postgres (`http_signature_schemes`) so that every process of the accounts service and its worker knows it, and
 * for a minute in each process (below).
 * A request to a host is signed with what it accepted before, or with HTTP_SIGNATURE_FIRST when nothing is known;
 * after a 401 it is signed again with the other scheme; a 2xx tells which one it accepts.
 */
export const otherScheme = (s: SignatureScheme): SignatureScheme =>
  s === 'rfc9421' ? 'draft-cavage' : 'rfc9421'

/**
 * What this process last read or wrote per host, for SCHEME_TTL_MS (docs/performance.md, "Write path"),
 * so that a post's deliveries do not each read `http_signature_schemes`. A stale entry is harmless: another process
 * may have learnt a different scheme meanwhile, and this one then signs with the old one, gets one 401 and knocks
 * again with the other, which it then remembers here and (when it differs from the row) in Postgres — the cost is
 * one extra request per host and process at most once per change, and a host that changes schemes changes rarely.
 * An unknown host is kept too (as undefined): its first request signs with HTTP_SIGNATURE_FIRST either way.
 */
export const SCHEME_TTL_MS = 60_000
const SCHEMES_CACHED = 10_000
const cachedByDatabase = new WeakMap<Knex, Map<string, { scheme?: SignatureScheme; at: number }>>()

function cacheOf(db: Knex) {
  let cache = cachedByDatabase.get(db)
  if (!cache) cachedByDatabase.set(db, (cache = new Map()))
  return cache
}

function keep(db: Knex, domain: string, scheme: SignatureScheme | undefined) {
  const cache = cacheOf(db)
  cache.delete(domain)
  cache.set(domain, { scheme, at: Date.now() })
  if (cache.size > SCHEMES_CACHED) cache.delete(cache.keys().next().value!)
}

export async function knownScheme(db: Knex, domain: string): Promise<SignatureScheme | undefined> {
  const cached = cacheOf(db).get(domain)
  const asked = Date.now()
  if (cached && asked - cached.at < SCHEME_TTL_MS) return cached.scheme
  const row = await db('http_signature_schemes').where({ domain }).first('scheme')
  // Not over what a request of this process learnt while the row was read.
  const meanwhile = cacheOf(db).get(domain)
  if (!meanwhile || meanwhile.at < asked) keep(db, domain, row?.scheme)
  return row?.scheme
}

/** Remembers that `domain` accepted `scheme` (written only when it changes). */
export async function rememberScheme(db: Knex, domain: string, scheme: SignatureScheme) {
  await db('http_signature_schemes')
    .insert({ domain, scheme, updated_at: db.fn.now() })
    .onConflict('domain')
    .merge(['scheme', 'updated_at'])
    .whereRaw('http_signature_schemes.scheme <> excluded.scheme')
  keep(db, domain, scheme)
}
