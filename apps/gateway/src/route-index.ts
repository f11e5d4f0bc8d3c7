import type { IncomingMessage, ServerResponse } from 'node:http'
import { pathToRegexp } from 'path-to-regexp'
import { bySpecificity } from '@roost/routes'
import type { Route } from '@roost/routes'

/** How many leading literal segments name a bucket: `/api/v1/accounts`. */
const DEPTH = 3

const literalPrefix = (path: string) => {
  const segments = path
    .toLowerCase()
    .split('/')
    .slice(1, DEPTH + 1)
  const end = segments.findIndex((s) => /[:*{}()\\]/.test(s))
  return `/${(end === -1 ? segments : segments.slice(0, end)).join('/')}`
}

/** A route whose length varies (a wildcard or an optional part): its regexp alone decides. */
const ANY = -1

/**
 * How many segments a path has, a trailing slash not counted: a route without wildcards matches only paths of its
 * own count (a parameter is one segment), so the index tests only those routes' regexps.
 */
const segmentCount = (path: string) => {
  let count = 0
  for (let i = 0; i < path.length - 1; i++) if (path.charCodeAt(i) === 47) count++
  return count
}

/**
 * Finds a request's route in the table without trying every route in turn, as an express Router does: its
 * layer-by-layer walk over 220 routes cost the gateway as much CPU per request as pino-http did
 * (docs/performance.md, "Gateway"). Routes sit in buckets by method and leading literal segments (at most
 * three: `/api/v1/accounts`); a request looks in the buckets of its own path's prefixes, longest first, and in each
 * tries the routes most specific first (bySpecificity), only those with as many segments as the path. That is the
 * route express would have found: a route of a longer literal prefix is more specific than one whose segment at
 * that place is a parameter. Matching is the Router's: case-insensitive, a trailing slash allowed, on the raw path
 * (nothing is decoded; the service does that).
 */
export function createRouteIndex<T>(entries: readonly { route: Route; value: T }[]) {
  const buckets = new Map<
    string,
    { route: Route; value: T; segments: number; matches: (path: string) => boolean }[]
  >()
  for (const { route, value } of [...entries].sort((a, b) => bySpecificity(a.route, b.route))) {
    const key = `${route.method} ${literalPrefix(route.path)}`
    const path = route.path.replace(/\/+$/, '') || '/'
    // The Router's matching (path-to-regexp's `match`), but only whether it matches: no parameters object.
    const { regexp } = pathToRegexp(path, { sensitive: false, end: true, trailing: true })
    const matches = (path: string) => regexp.test(path)
    let bucket = buckets.get(key)
    if (!bucket) buckets.set(key, (bucket = []))
    bucket.push({ route, value, segments: /[*{]/.test(path) ? ANY : segmentCount(path), matches })
  }
  return (method: string, path: string): { route: Route; value: T } | undefined => {
    // A HEAD request is answered by the GET route, as express does.
    const verb = method === 'HEAD' ? 'GET' : method
    const segments = path.toLowerCase().split('/')
    const count = segmentCount(path)
    for (let n = Math.min(DEPTH, segments.length - 1); n >= 0; n--) {
      const prefix = n === 0 ? '/' : segments.slice(0, n + 1).join('/')
      for (const candidate of buckets.get(`${verb} ${prefix}`) ?? [])
        if ((candidate.segments === count || candidate.segments === ANY) && candidate.matches(path))
          return candidate
    }
    return undefined
  }
}

/** A step of a route's handling in the gateway, on node's own request and response (no express). */
export type Handler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => unknown

/**
 * Runs a route's handlers in order, as express runs a route's: each calls `next` to go on; an error passed to
 * `next`, thrown, or rejected by a handler's promise goes to `done` (the error handler), and so does the end.
 */
export function runHandlers(
  handlers: readonly Handler[],
  req: IncomingMessage,
  res: ServerResponse,
  done: (err?: unknown) => void,
) {
  let i = 0
  const next = (err?: unknown) => {
    if (err !== undefined) return done(err)
    const handler = handlers[i++]
    if (!handler) return done()
    try {
      const result: unknown = handler(req, res, next)
      if (result instanceof Promise) result.catch(done)
    } catch (error) {
      done(error)
    }
  }
  next()
}
