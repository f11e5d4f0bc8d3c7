/**
 * `admin:*` scopes go to a user's token only when the user is an admin. A user who is not asks for them (an app
 * that requests admin scopes for its moderators) still signs in: the token is granted without them, and the token
 * response's `scope` says which were granted (RFC 6749 §3.3 lets a server grant fewer). So an admin-scoped user
 * token (e.g. for the gateway's Bull Board) always belongs to an admin. App tokens (client_credentials) may hold
 * them: they have no user, and the admin endpoints require one. See docs/mastodon-compatibility.md, "OAuth".
 */
export const isAdminScope = (scope: string) => scope.startsWith('admin:')

/**
 * The admin scopes a moderator may hold: those of reports, which Mastodon lets moderators handle
 * (`manage_reports`; docs/discovery.md, "Reports").
 */
const MODERATOR_SCOPES = new Set(['admin:read:reports', 'admin:write:reports'])

/** The requested scopes a user of `role` may be granted. */
export const grantableScopes = (role: string, scopes: readonly string[]): string[] =>
  role === 'admin'
    ? [...scopes]
    : scopes.filter((scope) => !isAdminScope(scope) || (role === 'moderator' && MODERATOR_SCOPES.has(scope)))
