import type { ServerResponse } from 'node:http'
import cors from 'cors'
import type { Express } from 'express'

/**
 * Where browsers may read Roost's answers from any origin, as Mastodon's rack-cors set-up allows: the API, the
 * token and revocation endpoints, the discovery documents and the media. Credentials are bearer tokens, never
 * cookies, so `*` is safe there. The HTML sign-in pages (/oauth/authorize) and Bull Board (/admin/queues, which
 * signs in with a cookie) are left out on purpose.
 */
export const CORS_PATHS = [
  '/api',
  '/oauth/token',
  '/oauth/revoke',
  '/.well-known',
  '/nodeinfo',
  '/media',
  '/avatars',
  '/headers',
]

/** The response headers clients read: paging, rate limits and the request id to quote in a report. */
export const EXPOSED_HEADERS = [
  'Link',
  'X-RateLimit-Reset',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-Request-Id',
]

/** The CORS headers (and the answer to a preflight), as the `cors` package sets them on a plain node response. */
export const corsHeaders = cors({
  origin: '*',
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
  exposedHeaders: EXPOSED_HEADERS,
  maxAge: 7200, // rack-cors' default: browsers cache a preflight for two hours
})

/**
 * What `corsHeaders` sets on an answer that is not a preflight, set directly by the gateway's handler of proxied
 * routes (which never see a preflight: no route of the table is an OPTIONS route): the package works its options
 * out again for every request. `cors.test.ts` checks that the two agree.
 */
const SIMPLE_CORS_HEADERS: [string, string][] = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Expose-Headers', EXPOSED_HEADERS.join(',')],
]

export function setSimpleCorsHeaders(res: ServerResponse) {
  for (const [name, value] of SIMPLE_CORS_HEADERS) res.setHeader(name, value)
}

/** Whether a path is under one of CORS_PATHS, as express matches a mount path: case-insensitive, whole segments. */
export function isCorsPath(path: string): boolean {
  const lower = path.toLowerCase()
  return CORS_PATHS.some((p) => lower === p || lower.startsWith(`${p}/`))
}

/** First of all middleware, so every answer on those paths carries the headers, errors included. */
export function mountCors(app: Express) {
  app.use(CORS_PATHS, corsHeaders)
}
