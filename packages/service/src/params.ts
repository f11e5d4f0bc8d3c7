import express from 'express'
import type { RequestHandler } from 'express'
import multer from 'multer'
import { z } from 'zod'

/**
 * Mastodon reads parameters from the query string, JSON, urlencoded forms with Rails brackets
 * (`subscription[keys][p256dh]`, `id[]`) and multipart forms alike. These parsers turn all of them into one
 * nested object; `params(req)` merges query and body the way Rails does (body wins).
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

export function params(req: express.Request): Params {
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {}
  return { ...(req.query as Params), ...body }
}

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

/** A zod boolean that accepts Rails-style strings; blank becomes undefined. */
export const zBool = z.preprocess(castBoolean, z.boolean().optional())

/** A zod string that accepts numbers too (JSON clients send 3600, forms send "3600"). */
export const zText = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string())
