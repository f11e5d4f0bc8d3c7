import { Invalid } from '@roost/errors'
import type { DomainError, ErrorKind } from '@roost/errors'

/**
 * The one error type handlers throw. `message` is what the client reads in `{"error": message}`;
 * `body` adds fields such as `details` (sign-up) or `error_description` (OAuth).
 * Anything that is not an HttpError becomes a 500 whose text never leaks internals.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

// The texts Mastodon answers with; see docs/mastodon-compatibility.md, "Parameters and errors"
export const badRequest = (message: string) => new HttpError(400, message)
export const paramMissing = (name: string) =>
  new HttpError(400, `param is missing or the value is empty or invalid: ${name}`)
export const invalidToken = () =>
  new HttpError(
    401,
    'The access token is invalid',
    {},
    {
      'WWW-Authenticate':
        'Bearer realm="Roost", error="invalid_token", error_description="The access token is invalid"',
    },
  )
export const outsideScopes = () => new HttpError(403, 'This action is outside the authorized scopes')
export const forbidden = (message = 'This action is not allowed') => new HttpError(403, message)
export const recordNotFound = () => new HttpError(404, 'Record not found')
export const notFound = () => new HttpError(404, 'Not Found')
export const unprocessable = (message: string, body: Record<string, unknown> = {}) =>
  new HttpError(422, message, body)
export const userRequired = () => new HttpError(422, 'This method requires an authenticated user')
export const tooManyRequests = () => new HttpError(429, 'Too many requests')

/**
 * The one table from a domain error's kind (`@roost/errors`, thrown by code that knows nothing of HTTP) to the
 * status a client sees. The body is `{"error": message}`, with Mastodon's `details` for a validation failure that
 * has them; the error's `cause` is never shown.
 */
export const STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = {
  malformed: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  invalid: 422,
  unavailable: 503,
}

/** A domain error as the client reads it. */
export const fromDomainError = (err: DomainError) =>
  new HttpError(
    STATUS_OF_KIND[err.kind],
    err.message,
    err instanceof Invalid && err.details ? { details: err.details } : {},
  )

/** OAuth endpoints answer RFC 6749 style: `error` is a code, `error_description` the sentence. */
export const oauthError = (status: number, code: string, description: string) =>
  new HttpError(status, code, { error_description: description })

/** Seconds a client should wait before retrying after a 503: about how long a restarting dependency takes. */
export const RETRY_AFTER_SECONDS = 5

/** Mastodon's 503 text; `Retry-After` tells clients when to try again. */
export const serviceUnavailable = () =>
  new HttpError(
    503,
    'There was a temporary problem serving your request, please try again',
    {},
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  )

/** SQLSTATE classes and codes of a Postgres that is gone or refusing connections (not of a bad query). */
const POSTGRES_UNAVAILABLE = /^(08...|57P0[123]|53300)$/
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EAI_AGAIN',
])
/** What pg, knex and ioredis say when their server cannot be reached; they give no code for these. */
const UNREACHABLE_MESSAGES = [
  'Connection terminated', // pg: the server went away mid-query
  'Client has encountered a connection error', // pg: a pooled client whose socket died
  'Connection is closed', // ioredis
  "Stream isn't writeable", // ioredis, offline queue off
  'Reached the max retries per request limit', // ioredis MaxRetriesPerRequestError
]

/**
 * True when `err` says Postgres or Redis cannot be reached right now (refused, reset, timed out, shutting down,
 * out of connections): the request may succeed later, so it is a 503, not a 500.
 */
export function isUnavailable(err: unknown): boolean {
  const e = err as {
    code?: unknown
    name?: unknown
    message?: unknown
    errors?: unknown
    cause?: unknown
  } | null
  if (!e || typeof e !== 'object') return false
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || POSTGRES_UNAVAILABLE.test(e.code)))
    return true
  if (e.name === 'KnexTimeoutError' || e.name === 'MaxRetriesPerRequestError') return true
  if (typeof e.message === 'string' && UNREACHABLE_MESSAGES.some((m) => (e.message as string).includes(m)))
    return true
  // Node's AggregateError (a connect to both 127.0.0.1 and ::1 refused) and fetch's TypeError carry the causes.
  return (
    (Array.isArray(e.errors) && e.errors.some(isUnavailable)) || (e.cause !== err && isUnavailable(e.cause))
  )
}
