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
