import {
  ADMIN_READ_SCOPES,
  ADMIN_WRITE_SCOPES,
  ALL_SCOPES,
  FOLLOW_GRANTS,
  grantorsOf,
  isScope,
  isSubset,
  parseScopes,
  permits,
  READ_SCOPES,
  WRITE_SCOPES,
} from './scopes'
import type { Scope } from './scopes'

/**
 * The whole implication table, written out by hand from Mastodon's vocabulary (docs/mastodon-compatibility.md, "OAuth") and Roost's
 * rules (docs/architecture.md, "Tokens"): for every scope, exactly the held scopes that grant it.
 */
const FOLLOW_CHILDREN = new Set<string>([
  'read:follows',
  'read:blocks',
  'read:mutes',
  'write:follows',
  'write:blocks',
  'write:mutes',
])

function expectedGrantors(scope: string): string[] {
  const grantors = [scope]
  if (scope.startsWith('admin:read:')) grantors.push('admin:read')
  else if (scope.startsWith('admin:write:')) grantors.push('admin:write')
  else if (scope.startsWith('read:')) grantors.push('read')
  else if (scope.startsWith('write:')) grantors.push('write')
  if (FOLLOW_CHILDREN.has(scope)) grantors.push('follow')
  return grantors.sort()
}

describe('the scope vocabulary', () => {
  it('has Mastodon’s 7 top-level, 12 read, 14 write and 2×7 admin scopes, no duplicates', () => {
    expect(ALL_SCOPES.slice(0, 7)).toEqual([
      'read',
      'write',
      'follow',
      'push',
      'profile',
      'admin:read',
      'admin:write',
    ])
    expect(READ_SCOPES).toHaveLength(12)
    expect(WRITE_SCOPES).toHaveLength(14)
    expect(ADMIN_READ_SCOPES).toEqual([
      'admin:read:accounts',
      'admin:read:reports',
      'admin:read:domain_allows',
      'admin:read:domain_blocks',
      'admin:read:ip_blocks',
      'admin:read:email_domain_blocks',
      'admin:read:canonical_email_blocks',
    ])
    expect(ADMIN_WRITE_SCOPES).toEqual(ADMIN_READ_SCOPES.map((s) => s.replace('admin:read:', 'admin:write:')))
    expect(new Set(ALL_SCOPES).size).toBe(ALL_SCOPES.length)
    expect(ALL_SCOPES).toHaveLength(7 + 12 + 14 + 14)
    expect([...FOLLOW_GRANTS].sort()).toEqual([...FOLLOW_CHILDREN].sort())
  })

  it('knows removed and made-up scopes are not scopes', () => {
    for (const bad of ['crypto', 'read:reports', 'admin', 'admin:read:everything', 'READ', 'read:', ''])
      expect(isScope(bad)).toBe(false)
  })
})

describe('implications, for every scope', () => {
  it.each(ALL_SCOPES.map((s) => [s]))('%s is granted exactly by the expected scopes', (scope) => {
    expect([...grantorsOf(scope)].sort()).toEqual(expectedGrantors(scope))
    // And permits() agrees, checked against every possible single held scope.
    const granting = ALL_SCOPES.filter((held) => permits([held], [scope])).sort()
    expect(granting).toEqual(expectedGrantors(scope))
  })

  it('read, write, admin:read and admin:write grant all of their children and nothing else', () => {
    const children = (held: Scope) => ALL_SCOPES.filter((s) => s !== held && permits([held], [s]))
    expect(children('read')).toEqual([...READ_SCOPES])
    expect(children('write')).toEqual([...WRITE_SCOPES])
    expect(children('admin:read')).toEqual([...ADMIN_READ_SCOPES])
    expect(children('admin:write')).toEqual([...ADMIN_WRITE_SCOPES])
  })

  it('follow grants read and write of follows, blocks and mutes only', () => {
    const granted = ALL_SCOPES.filter((s) => s !== 'follow' && permits(['follow'], [s]))
    expect(granted.sort()).toEqual([...FOLLOW_CHILDREN].sort())
    expect(permits(['follow'], ['read:accounts'])).toBe(false)
    expect(permits(['follow'], ['write:statuses'])).toBe(false)
  })

  it('push and profile grant only themselves, and nothing else grants them', () => {
    for (const only of ['push', 'profile'] as const) {
      expect(ALL_SCOPES.filter((s) => permits([only], [s]))).toEqual([only])
      expect(ALL_SCOPES.filter((held) => permits([held], [only]))).toEqual([only])
    }
    const everythingButPush = ALL_SCOPES.filter((s) => s !== 'push')
    expect(permits(everythingButPush, ['push'])).toBe(false)
    expect(permits(['read', 'write', 'follow', 'admin:read', 'admin:write'], ['push'])).toBe(false)
  })

  it('a parent does not grant across families (read ≠ write, read ≠ admin:read)', () => {
    expect(permits(['read'], ['write:accounts'])).toBe(false)
    expect(permits(['write'], ['read:accounts'])).toBe(false)
    expect(permits(['read'], ['admin:read:accounts'])).toBe(false)
    expect(permits(['admin:read'], ['read:accounts'])).toBe(false)
    expect(permits(['admin:read'], ['admin:write:accounts'])).toBe(false)
  })

  it('any one accepted scope suffices; no held scope grants nothing', () => {
    expect(permits(['read:accounts'], ['write:accounts', 'read:accounts'])).toBe(true)
    expect(permits([], ['read:accounts'])).toBe(false)
    expect(permits(['read'], [])).toBe(false)
  })
})

describe('parsing', () => {
  it('splits on spaces and pluses, drops duplicates, refuses unknown scopes', () => {
    expect(parseScopes('read  write+push read')).toEqual(['read', 'write', 'push'])
    expect(parseScopes('read crypto')).toBeUndefined()
    expect(parseScopes('')).toEqual([])
  })

  it('isSubset compares literally (a parent in the app does not admit a child request)', () => {
    expect(isSubset(['read', 'push'], ['read', 'write', 'push'])).toBe(true)
    expect(isSubset(['read:accounts'], ['read'])).toBe(false)
    expect(isSubset([], ['read'])).toBe(true)
  })
})
