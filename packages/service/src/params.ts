import express from 'express'
import type { RequestHandler } from 'express'
import multer from 'multer'
import { badRequest, HttpError } from './errors'
import { jsonBody } from './json'

/**
 * Mastodon reads parameters from the query string, JSON, urlencoded forms with Rails brackets
 * (`subscription[keys][p256dh]`, `id[]`) and multipart forms alike. These parsers turn all of them into one
 * nested object; a handler reads them with `readParams` (@roost/routes), which merges query and body the way
 * Rails does (body wins) and validates them with the route's schema. In JSON, an integer beyond 2^53 (an id sent
 * as a number) arrives as its exact decimal text, every other number as a number.
 */
export function bodyParsers(options: { limit?: string; fileBytes?: number } = {}): RequestHandler[] {
  const limit = options.limit ?? '100kb'
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: options.fileBytes ?? 1, fieldSize: 64 * 1024, fields: 200 },
  })
  const multipart = options.fileBytes ? upload.any() : upload.none()
  return [
    // express.json, but ids beyond 2^53 sent as JSON numbers arrive as their exact text (json.ts).
    jsonBody({ limit }),
    express.urlencoded({ extended: true, limit, parameterLimit: 1000 }),
    // busboy reports a broken multipart body (no boundary, a malformed part, a cut-off form) as a plain Error:
    // the client's mistake, so a 400 rather than the 500 of an unknown error.
    (req, res, next) =>
      multipart(req, res, (err?: unknown) =>
        next(
          err && !(err instanceof multer.MulterError)
            ? new HttpError(400, 'The request body is not a valid multipart form')
            : err,
        ),
      ),
    (req, _res, next) =>
      next(
        hasNul(req.query) || hasNul(req.body)
          ? badRequest('A parameter contains a NUL character')
          : undefined,
      ),
  ]
}

/**
 * Postgres text cannot hold U+0000, and no Mastodon parameter needs it: a request carrying one is refused as a
 * whole rather than stored with the character silently dropped.
 */
function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  if (depth > 32 || value === null || typeof value !== 'object') return false
  return Object.entries(value).some(([k, v]) => k.includes('\u0000') || hasNul(v, depth + 1))
}

export type Params = Record<string, unknown>

/** A scalar parameter as text (for Link headers and the like); objects and arrays are not text. */
export const paramText = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : undefined

/** The uploaded file of a multipart field, if any. */
export function uploadedFile(req: express.Request, field: string): Express.Multer.File | undefined {
  const files = (req.files ?? []) as Express.Multer.File[]
  return files.find((f) => f.fieldname === field)
}

const FALSE_VALUES = new Set(['false', '0', 'f', 'F', 'FALSE', 'False', 'off', 'OFF', 'Off'])

/** Rails' ActiveModel::Type::Boolean: blank is "not given", the usual false spellings are false, the rest true. */
export function castBoolean(value: unknown): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined
  if (typeof value === 'boolean') return value
  if (typeof value === 'number') return value !== 0
  if (typeof value === 'string') return !FALSE_VALUES.has(value)
  return true
}
