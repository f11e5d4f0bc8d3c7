import { ROUTES, serviceRoutes } from '@roost/routes'
import type { Route } from '@roost/routes'
import { RATE_LIMIT_FAMILIES } from '../apps/gateway/src/rate-limit'
import { startStack } from './stack'
import type { Stack } from './stack'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const name = (r: Route) => `${r.method} ${r.path} (${r.upstream})`
/** `/accounts/:id` and `/accounts/:account_id` are the same route to express. */
const shape = (r: Pick<Route, 'method' | 'path'>) => `${r.method} ${r.path.replace(/:[^/]+/g, ':param')}`

describe('the route table (packages/routes/src/table.ts) and the services', () => {
  it('every table route is registered with real handlers by its upstream service', () => {
    const registered = { accounts: stack.accounts.routes(), push: stack.push.routes() }
    const missing = ROUTES.filter((route) => !registered[route.upstream].includes(route)).map(name)
    expect(missing).toEqual([])
  })

  it('every registered route is a table route of that service, registered once', () => {
    for (const [upstream, routes] of [
      ['accounts', stack.accounts.routes()],
      ['push', stack.push.routes()],
    ] as const) {
      expect(routes.filter((r) => !ROUTES.includes(r) || r.upstream !== upstream).map(name)).toEqual([])
      expect(routes.filter((r, i) => routes.indexOf(r) !== i).map(name)).toEqual([])
    }
  })

  it('no two table routes share a method and path', () => {
    const seen = new Map<string, Route>()
    const clashes: string[] = []
    for (const route of ROUTES) {
      const key = shape(route)
      const earlier = seen.get(key)
      if (earlier) clashes.push(`${name(earlier)} and ${name(route)}`)
      seen.set(key, route)
    }
    expect(clashes).toEqual([])
  })

  it('a service cannot register a route the table does not give it (checked at start-up)', () => {
    const accounts = serviceRoutes('accounts', stack.accounts.ctx.verify)
    expect(() => accounts.get('/api/v1/not_in_the_table', () => {})).toThrow(
      'GET /api/v1/not_in_the_table is not in the route table for accounts (packages/routes/src/table.ts)',
    )
    // A table path with another method, and another service's route, are refused too.
    expect(() => accounts.delete('/api/v1/apps', () => {})).toThrow(/not in the route table for accounts/)
    expect(() => accounts.get('/api/v1/push/subscription', () => {})).toThrow(
      /not in the route table for accounts/,
    )
    const push = serviceRoutes('push', stack.accounts.ctx.verify)
    expect(() => push.get('/api/v1/accounts/verify_credentials', () => {})).toThrow(
      /not in the route table for push/,
    )
    // A table route of the service is accepted.
    expect(() => push.get('/api/v1/push/subscription', () => {})).not.toThrow()
  })
})

describe('route attributes the gateway reads', () => {
  it('every per-route rate-limit family counts at least one route of the table', () => {
    const named = new Set(ROUTES.flatMap((r) => r.rateLimit ?? []))
    const perRoute = RATE_LIMIT_FAMILIES.map((f) => f.name).filter((n) => !n.startsWith('api_'))
    expect(perRoute.filter((n) => !named.has(n as never))).toEqual([])
  })

  it('uploads, sign-up and the per-account families sit on the routes Mastodon applies them to', () => {
    const of = (attribute: (r: Route) => unknown) =>
      ROUTES.filter(attribute)
        .map((r) => `${r.method} ${r.path}`)
        .sort()
    expect(of((r) => r.body === 'upload')).toEqual([
      'PATCH /api/v1/accounts/update_credentials',
      'POST /api/v1/media',
      'POST /api/v2/media',
    ])
    expect(of((r) => r.signUp)).toEqual(['POST /api/v1/accounts'])
    expect(of((r) => r.rateLimit?.includes('statuses'))).toEqual([
      'POST /api/v1/statuses',
      'POST /api/v1/statuses/:id/reblog',
    ])
  })
})
