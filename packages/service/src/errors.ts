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

/** OAuth endpoints answer RFC 6749 style: `error` is a code, `error_description` the sentence. */
export const oauthError = (status: number, code: string, description: string) =>
  new HttpError(status, code, { error_description: description })
