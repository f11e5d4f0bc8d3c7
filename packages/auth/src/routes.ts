import type { Scope } from './scopes'

export type Upstream = 'accounts' | 'push'
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/**
 * How a route treats the bearer token:
 * - `none`: never read (the OAuth endpoints authenticate clients their own way; static and discovery documents);
 * - `optional`: public, but a presented token must be valid and hold one of `scopes` (Mastodon's
 *   `authorize_if_got_token!`); an unknown token reads as none, a revoked one is refused;
 * - `required`: a valid token holding one of `scopes`; an empty `scopes` accepts any valid token.
 */
export type Access = 'none' | 'optional' | 'required'

export interface Route {
  method: Method
  /** An express path pattern; ids are `:id`. */
  path: string
  upstream: Upstream
  access: Access
  /** Accepted scopes, any one of which suffices (each also granted by its parents; see scopes.ts). */
  scopes: readonly Scope[]
}

const route = (
  method: Method,
  path: string,
  upstream: Upstream,
  access: Access,
  scopes: Scope[] = [],
): Route => ({
  method,
  path,
  upstream,
  access,
  scopes,
})

const ACCOUNTS = 'accounts'
const PUSH = 'push'

/**
 * THE route table: every public endpoint, its upstream service and the scopes it accepts (Mastodon's, from
 * shared api-reference §1.8). The gateway builds its router from it and the services re-check every request
 * against it; a service cannot serve a route that is missing here (see `serviceRoutes`).
 */
export const ROUTES: readonly Route[] = [
  // OAuth server and app registration (apps/accounts/src/oauth)
  route('POST', '/api/v1/apps', ACCOUNTS, 'none'),
  route('GET', '/api/v1/apps/verify_credentials', ACCOUNTS, 'required'),
  route('GET', '/oauth/authorize', ACCOUNTS, 'none'),
  route('POST', '/oauth/authorize', ACCOUNTS, 'none'),
  route('POST', '/oauth/token', ACCOUNTS, 'none'),
  route('POST', '/oauth/revoke', ACCOUNTS, 'none'),
  route('GET', '/oauth/jwks', ACCOUNTS, 'none'),
  route('GET', '/.well-known/oauth-authorization-server', ACCOUNTS, 'none'),

  // Accounts and profiles (apps/accounts/src/api/v1/accounts)
  route('POST', '/api/v1/accounts', ACCOUNTS, 'required', ['write:accounts']),
  route('GET', '/api/v1/accounts', ACCOUNTS, 'optional', ['read:accounts']),
  route('GET', '/api/v1/accounts/verify_credentials', ACCOUNTS, 'required', ['read:accounts', 'profile']),
  route('PATCH', '/api/v1/accounts/update_credentials', ACCOUNTS, 'required', ['write:accounts']),
  route('GET', '/api/v1/accounts/lookup', ACCOUNTS, 'optional', ['read:accounts']),
  route('GET', '/api/v1/accounts/search', ACCOUNTS, 'required', ['read:accounts']),
  route('GET', '/api/v1/accounts/relationships', ACCOUNTS, 'required', ['read:follows']),
  route('GET', '/api/v1/accounts/:id', ACCOUNTS, 'optional', ['read:accounts']),
  route('GET', '/api/v1/accounts/:id/statuses', ACCOUNTS, 'optional', ['read:statuses']),
  route('GET', '/api/v1/accounts/:id/statuses/media', ACCOUNTS, 'optional', ['read:statuses']),
  route('GET', '/api/v1/accounts/:id/followers', ACCOUNTS, 'optional', ['read:accounts']),
  route('GET', '/api/v1/accounts/:id/following', ACCOUNTS, 'optional', ['read:accounts']),
  route('POST', '/api/v1/accounts/:id/follow', ACCOUNTS, 'required', ['write:follows']),
  route('POST', '/api/v1/accounts/:id/unfollow', ACCOUNTS, 'required', ['write:follows']),
  route('POST', '/api/v1/accounts/:id/remove_from_followers', ACCOUNTS, 'required', ['write:follows']),
  route('POST', '/api/v1/accounts/:id/block', ACCOUNTS, 'required', ['write:blocks']),
  route('POST', '/api/v1/accounts/:id/unblock', ACCOUNTS, 'required', ['write:blocks']),
  route('POST', '/api/v1/accounts/:id/mute', ACCOUNTS, 'required', ['write:mutes']),
  route('POST', '/api/v1/accounts/:id/unmute', ACCOUNTS, 'required', ['write:mutes']),
  route('GET', '/api/v1/follow_requests', ACCOUNTS, 'required', ['read:follows']),
  route('POST', '/api/v1/follow_requests/:id/authorize', ACCOUNTS, 'required', ['write:follows']),
  route('POST', '/api/v1/follow_requests/:id/reject', ACCOUNTS, 'required', ['write:follows']),
  route('GET', '/api/v1/blocks', ACCOUNTS, 'required', ['read:blocks']),
  route('GET', '/api/v1/mutes', ACCOUNTS, 'required', ['read:mutes']),
  route('GET', '/api/v2/search', ACCOUNTS, 'optional', ['read:search']),
  route('GET', '/api/v1/search', ACCOUNTS, 'optional', ['read:search']),

  // Statuses, media, timelines (apps/accounts/src/api/v1/statuses …)
  route('POST', '/api/v1/statuses', ACCOUNTS, 'required', ['write:statuses']),
  route('GET', '/api/v1/statuses/:id', ACCOUNTS, 'optional', ['read:statuses']),
  route('DELETE', '/api/v1/statuses/:id', ACCOUNTS, 'required', ['write:statuses']),
  route('POST', '/api/v1/statuses/:id/favourite', ACCOUNTS, 'required', ['write:favourites']),
  route('POST', '/api/v1/statuses/:id/unfavourite', ACCOUNTS, 'required', ['write:favourites']),
  route('POST', '/api/v1/statuses/:id/reblog', ACCOUNTS, 'required', ['write:statuses']),
  route('POST', '/api/v1/statuses/:id/unreblog', ACCOUNTS, 'required', ['write:statuses']),
  route('POST', '/api/v1/statuses/:id/pin', ACCOUNTS, 'required', ['write:accounts']),
  route('POST', '/api/v1/statuses/:id/unpin', ACCOUNTS, 'required', ['write:accounts']),
  route('POST', '/api/v1/media', ACCOUNTS, 'required', ['write:media']),
  route('POST', '/api/v2/media', ACCOUNTS, 'required', ['write:media']),
  route('GET', '/api/v1/media/:id', ACCOUNTS, 'required', ['write:media']),
  route('PUT', '/api/v1/media/:id', ACCOUNTS, 'required', ['write:media']),
  route('DELETE', '/api/v1/media/:id', ACCOUNTS, 'required', ['write:media']),
  route('GET', '/api/v1/timelines/public', ACCOUNTS, 'optional', ['read:statuses']),
  route('GET', '/media/:file', ACCOUNTS, 'none'),

  // Notifications
  route('GET', '/api/v1/notifications', ACCOUNTS, 'required', ['read:notifications']),
  route('GET', '/api/v1/notifications/:id', ACCOUNTS, 'required', ['read:notifications']),
  route('POST', '/api/v1/notifications/clear', ACCOUNTS, 'required', ['write:notifications']),
  route('POST', '/api/v1/notifications/:id/dismiss', ACCOUNTS, 'required', ['write:notifications']),

  // Administration (role checked by the service)
  route('GET', '/api/v1/admin/accounts', ACCOUNTS, 'required', ['admin:read:accounts']),
  route('GET', '/api/v1/admin/accounts/:id', ACCOUNTS, 'required', ['admin:read:accounts']),
  route('POST', '/api/v1/admin/accounts/:id/approve', ACCOUNTS, 'required', ['admin:write:accounts']),
  route('POST', '/api/v1/admin/accounts/:id/reject', ACCOUNTS, 'required', ['admin:write:accounts']),
  route('POST', '/api/v1/admin/accounts/:id/action', ACCOUNTS, 'required', ['admin:write:accounts']),
  route('POST', '/api/v1/admin/accounts/:id/unsuspend', ACCOUNTS, 'required', ['admin:write:accounts']),
  route('GET', '/api/v1/admin/ip_blocks', ACCOUNTS, 'required', ['admin:read:ip_blocks']),
  route('GET', '/api/v1/admin/ip_blocks/:id', ACCOUNTS, 'required', ['admin:read:ip_blocks']),
  route('POST', '/api/v1/admin/ip_blocks', ACCOUNTS, 'required', ['admin:write:ip_blocks']),
  route('PUT', '/api/v1/admin/ip_blocks/:id', ACCOUNTS, 'required', ['admin:write:ip_blocks']),
  route('DELETE', '/api/v1/admin/ip_blocks/:id', ACCOUNTS, 'required', ['admin:write:ip_blocks']),

  // Instance
  route('GET', '/api/v1/instance', ACCOUNTS, 'none'),
  route('GET', '/api/v2/instance', ACCOUNTS, 'none'),
  route('GET', '/api/v1/custom_emojis', ACCOUNTS, 'none'),

  // Web Push subscriptions (apps/push/src/api)
  route('POST', '/api/v1/push/subscription', PUSH, 'required', ['push']),
  route('GET', '/api/v1/push/subscription', PUSH, 'required', ['push']),
  route('PUT', '/api/v1/push/subscription', PUSH, 'required', ['push']),
  route('DELETE', '/api/v1/push/subscription', PUSH, 'required', ['push']),
]

/**
 * Orders routes so that literal segments win over parameters (`/accounts/verify_credentials` before
 * `/accounts/:id`), whatever order they were written in.
 */
export function bySpecificity<T extends { path: string }>(a: T, b: T): number {
  const as = a.path.split('/')
  const bs = b.path.split('/')
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const ap = as[i]!.startsWith(':')
    const bp = bs[i]!.startsWith(':')
    if (ap !== bp) return ap ? 1 : -1
  }
  return bs.length - as.length
}

export function findRoute(method: string, path: string): Route | undefined {
  return ROUTES.find((r) => r.method === method && r.path === path)
}
