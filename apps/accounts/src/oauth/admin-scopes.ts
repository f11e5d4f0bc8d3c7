/**
 * `admin:*` scopes go to a user's token only when the user holds a role (anything but "everyone"; roles are
 * Mastodon's, docs/moderation.md). A user who does not asks for them (an app that requests admin scopes for its
 * moderators) still signs in: the token is granted without them, and the token response's `scope` says which were
 * granted (RFC 6749 §3.3 lets a server grant fewer). Every admin endpoint then checks the permission bit its route
 * names against the user's role at the time of the request. App tokens (client_credentials) may hold them: they
 * have no user, and the admin endpoints require one. See docs/mastodon-compatibility.md, "OAuth".
 */
export const isAdminScope = (scope: string) => scope.startsWith('admin:')

/** The requested scopes a user of `role` (a role key, users/roles.ts) may be granted. */
export const grantableScopes = (role: string, scopes: readonly string[]): string[] =>
  role !== 'user' ? [...scopes] : scopes.filter((scope) => !isAdminScope(scope))
