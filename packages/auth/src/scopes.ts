/**
 * Mastodon's OAuth scope vocabulary (config/initializers/doorkeeper.rb, mid-2026) and Roost's implication rules
 * (docs/architecture.md, "Tokens"): `read`, `write`, `admin:read` and `admin:write` grant their granular children; the
 * deprecated `follow` grants read and write of follows, blocks and mutes; `push` and `profile` grant only
 * themselves, and nothing grants them.
 */
export const READ_SCOPES = [
  'read:accounts',
  'read:blocks',
  'read:bookmarks',
  'read:collections',
  'read:favourites',
  'read:filters',
  'read:follows',
  'read:lists',
  'read:mutes',
  'read:notifications',
  'read:search',
  'read:statuses',
] as const

export const WRITE_SCOPES = [
  'write:accounts',
  'write:blocks',
  'write:bookmarks',
  'write:collections',
  'write:conversations',
  'write:favourites',
  'write:filters',
  'write:follows',
  'write:lists',
  'write:media',
  'write:mutes',
  'write:notifications',
  'write:reports',
  'write:statuses',
] as const

const ADMIN_RESOURCES = [
  'accounts',
  'reports',
  'domain_allows',
  'domain_blocks',
  'ip_blocks',
  'email_domain_blocks',
  'canonical_email_blocks',
] as const

export const ADMIN_READ_SCOPES = ADMIN_RESOURCES.map((r) => `admin:read:${r}` as const)
export const ADMIN_WRITE_SCOPES = ADMIN_RESOURCES.map((r) => `admin:write:${r}` as const)

export const FOLLOW_GRANTS = [
  'read:follows',
  'read:blocks',
  'read:mutes',
  'write:follows',
  'write:blocks',
  'write:mutes',
] as const

/** Every scope, in Mastodon's order (also the order of `scopes_supported`). */
export const ALL_SCOPES = [
  'read',
  'write',
  'follow',
  'push',
  'profile',
  'admin:read',
  'admin:write',
  ...READ_SCOPES,
  ...WRITE_SCOPES,
  ...ADMIN_READ_SCOPES,
  ...ADMIN_WRITE_SCOPES,
] as const

export type Scope = (typeof ALL_SCOPES)[number]

const KNOWN = new Set<string>(ALL_SCOPES)

export function isScope(value: string): value is Scope {
  return KNOWN.has(value)
}

/** Splits a space- (or `+`-) separated scope string, dropping duplicates; `undefined` if any is unknown. */
export function parseScopes(value: string): Scope[] | undefined {
  const parts = [...new Set(value.split(/[\s+]+/).filter(Boolean))]
  return parts.every(isScope) ? parts : undefined
}

/** The scopes that grant `wanted`: itself and its parents. */
export function grantorsOf(wanted: Scope): Scope[] {
  const grantors: Scope[] = [wanted]
  if (wanted.startsWith('admin:read:')) grantors.push('admin:read')
  else if (wanted.startsWith('admin:write:')) grantors.push('admin:write')
  else if (wanted.startsWith('read:')) grantors.push('read')
  else if (wanted.startsWith('write:')) grantors.push('write')
  if ((FOLLOW_GRANTS as readonly string[]).includes(wanted)) grantors.push('follow')
  return grantors
}

/** True when the held scopes grant at least one of the accepted ones (Doorkeeper's any-of rule). */
export function permits(held: readonly string[], accepted: readonly Scope[]): boolean {
  return accepted.some((wanted) => grantorsOf(wanted).some((g) => held.includes(g)))
}

/** True when every scope in `requested` is among `allowed` (an app's registered scopes). */
export function isSubset(requested: readonly string[], allowed: readonly string[]): boolean {
  return requested.every((s) => allowed.includes(s))
}
