import express from 'express'
import type { RequestHandler } from 'express'
import multer from 'multer'

/**
 * Mastodon reads parameters from the query string, JSON, urlencoded forms with Rails brackets
 * (`subscription[keys][p256dh]`, `id[]`) and multipart forms alike. These parsers turn all of them into one
 * nested object; a handler reads them with `readParams` (@roost/routes), which merges query and body the way
 * Rails does (body wins) and validates them with the route's schema.
 */
export function bodyParsers(options: { limit?: string; fileBytes?: number } = {}): RequestHandler[] {
  const limit = options.limit ?? '100kb'
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: options.fileBytes ?? 1, fieldSize: 64 * 1024, fields: 200 },
  })
  return [
    express.json({ limit, strict: false }),
    express.urlencoded({ extended: true, limit, parameterLimit: 1000 }),
    options.fileBytes ? upload.any() : upload.none(),
  ]
}

export type Params = Record<string, unknown>

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
