import type { NextFunction, Request, RequestHandler, Response, Router } from 'express'
import { authenticate } from '@roost/auth'
import type { TokenVerifier } from '@roost/auth'
import { notFound } from '@roost/service'
import { bySpecificity, findRoute, ROUTES } from './table'
import type { Method, Route, Upstream } from './table'

type Handler = (req: Request, res: Response, next: NextFunction) => unknown

declare module 'express-serve-static-core' {
  interface Request {
    /** The table route the request matched (its `params` schema is what `readParams` validates with). */
    apiRoute?: Route
  }
}

/**
 * A service's routes, each checked against the route table: registering a route the table does not list for
 * this service throws at start-up. `mount` adds every table route of this service most-specific first, each
 * behind `authenticate`; a table route the service does not implement (yet) still checks the token, then
 * answers 404, so a request sent straight to the service never gets further without a valid token.
 */
export function serviceRoutes(upstream: Exclude<Upstream, 'gateway'>, verify: TokenVerifier) {
  const registered: { route: Route; handlers: Handler[] }[] = []
  const add =
    (method: Method) =>
    (path: string, ...handlers: Handler[]) => {
      const route = findRoute(method, path)
      if (!route || route.upstream !== upstream)
        throw new Error(
          `${method} ${path} is not in the route table for ${upstream} (packages/routes/src/table.ts)`,
        )
      registered.push({ route, handlers })
    }
  return {
    get: add('GET'),
    post: add('POST'),
    put: add('PUT'),
    patch: add('PATCH'),
    delete: add('DELETE'),
    routes: () => registered.map((r) => r.route),
    mount(router: Router) {
      const unimplemented: Handler = (_req, _res, next) => next(notFound())
      const all = ROUTES.filter((route) => route.upstream === upstream).map((route) => ({
        route,
        handlers: registered.find((r) => r.route === route)?.handlers ?? [unimplemented],
      }))
      for (const { route, handlers } of all.sort((a, b) => bySpecificity(a.route, b.route))) {
        const check: RequestHandler = (req, _res, next) => {
          req.apiRoute = route
          authenticate(route, req, verify).then((token) => {
            req.token = token
            next()
          }, next)
        }
        router[route.method.toLowerCase() as 'get'](route.path, check, ...(handlers as RequestHandler[]))
      }
    },
  }
}

export type ServiceRoutes = ReturnType<typeof serviceRoutes>
