/**
 * `admin:*` scopes go to a user's token only when the user is an admin. Mastodon checks the role at each admin
 * endpoint; Roost also refuses to mint such tokens, so an admin-scoped user token (e.g. for the gateway's Bull
 * Board) always belongs to an admin. App tokens (client_credentials) may hold them: they have no user, and the
 * admin endpoints require one.
 */
export const isAdminScope = (scope: string) => scope.startsWith('admin:')

export const mayGrantScopes = (role: string, scopes: readonly string[]) =>
  role === 'admin' || !scopes.some(isAdminScope)
