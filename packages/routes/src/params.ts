import type { Request } from 'express'
import { z } from 'zod'
import { castBoolean, paramMissing, unprocessable } from '@roost/service'
import type { HttpError } from '@roost/service'

/**
 * Route parameters: declared once per route in the table (`params`, a zod object built from the helpers below),
 * read by the handler with `readParams(req, schema)`, and published in the OpenAPI document (openapi.ts). See
 * docs/architecture.md, "How to add an endpoint".
 *
 * Mastodon reads query string and body alike (JSON, urlencoded forms with Rails brackets, multipart), so the
 * two are merged, body winning; undeclared parameters are dropped. Errors keep Mastodon's texts:
 * - a value of the wrong shape (an object for a string, `abc` for an integer, a missing required one) is
 *   400 "param is missing or the value is empty or invalid: NAME" (Rails' ParameterMissing);
 * - a schema's own message (`{ error: '…' }`) and the `maxChars` limit are 422 "Validation failed: …", all of
 *   them joined as Rails joins a model's errors.
 */

/** What zod calls an issue that carries no message of the schema's own: a shape error, answered 400. */
const SHAPE = 'shape'

const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v)
const numberToString = (v: unknown) => (typeof v === 'number' ? String(v) : v)

const normaliseText = (v: unknown) => (v === null ? undefined : numberToString(v))

/** A string (numbers accepted: JSON clients send 3600, forms "3600"); `maxChars` counts characters as Ruby does. */
function string(maxChars: number | undefined) {
  if (maxChars === undefined) return z.string()
  return z
    .string()
    .refine((s) => [...s].length <= maxChars, { params: { maxChars } })
    .meta({ maxLength: maxChars })
}

const text = (options: { maxChars?: number } = {}) =>
  z.preprocess(normaliseText, string(options.maxChars).optional())

/** A string that must be given and not blank (Rails' `params.require`): else a 400. */
const requiredText = (options: { maxChars?: number } = {}) =>
  z.preprocess(
    normaliseText,
    string(options.maxChars).refine((s) => s.trim() !== ''),
  )

/** Rails' boolean casting: blank is "not given", `false`/`0`/`off`… are false, other text true; an object is a 400. */
const bool = () =>
  z.preprocess((v) => (typeof v === 'object' && v !== null ? v : castBoolean(v)), z.boolean().optional())

/** A whole number (or its decimal text); blank is "not given". */
const int = () =>
  z.preprocess((v) => {
    const given = blankToUndefined(v)
    return typeof given === 'string' && /^-?\d+$/.test(given) ? Number(given) : given
  }, z.int().optional())

/**
 * A list of strings: `name[]=a&name[]=b` (form), `name: [...]` (JSON) or a lone `name=a`; blank or null is an
 * empty list (given, so it can clear a setting). qs turns a long bracket list (more than 20) into an object
 * keyed by index: its values are the list.
 */
const list = () =>
  z.preprocess(
    (v) => {
      if (v === '' || v === null) return []
      if (v === undefined || Array.isArray(v)) return v
      if (typeof v !== 'object') return [v]
      return Object.keys(v).every((key) => /^\d+$/.test(key)) ? Object.values(v) : v
    },
    z.array(z.preprocess(numberToString, z.string())).optional(),
  )

/** A nested object (`poll[options][]=…` in a form, `"poll": {…}` in JSON); blank is "not given". */
const object = <T extends z.ZodRawShape>(shape: T) =>
  z.preprocess(blankToUndefined, z.object(shape).optional())

/**
 * A list of objects (Rails' nested attributes: `name[0][key]=…` or `name[][key]=…` in a form, a JSON array). qs
 * reads repeated `name[][key]` pairs as one object of lists, where Rack starts a new object at each repeat: such
 * an object is zipped back into one object per repeat.
 */
const objects = <T extends z.ZodRawShape>(shape: T) =>
  z.preprocess(
    (v) => {
      if (v === '' || v === null) return []
      if (typeof v !== 'object' || v === undefined) return v
      const items = Array.isArray(v) ? v : Object.values(v)
      return items.flatMap((item: unknown) => {
        if (typeof item !== 'object' || item === null || Array.isArray(item)) return [item]
        const columns = Object.entries(item)
        const rows = Math.max(1, ...columns.map(([, c]) => (Array.isArray(c) ? c.length : 1)))
        if (rows === 1) return [item]
        return Array.from({ length: rows }, (_, i) =>
          Object.fromEntries(columns.map(([k, c]) => [k, Array.isArray(c) ? c[i] : c])),
        )
      })
    },
    z.array(z.object(shape)).optional(),
  )

/** One of `values` (blank: not given); another text is a 422 with `message`, a non-text a 400. */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, message: string) =>
  z
    .preprocess(
      (v) => numberToString(blankToUndefined(v)),
      z
        .string()
        .pipe(z.enum(values, { error: message }))
        .optional(),
    )
    .meta({ type: 'string', enum: [...values] })

/**
 * A parameter the handler checks itself because its errors are not the two above: OAuth's RFC 6749 errors,
 * sign-up's and profile updates' 422 with `details`. `doc` is its JSON schema in the OpenAPI document.
 */
const checkedByHandler = (doc: Record<string, unknown>) => z.unknown().optional().meta(doc)

/** A multipart file (read with `uploadedFile`); declared for the document. */
const file = (description: string) =>
  z.unknown().optional().meta({ type: 'string', format: 'binary', description })

/**
 * Keyset pagination (`readPage` in @roost/service reads these): lenient as Mastodon's `limit_param` and id
 * cursors are, so they are passed through unchanged.
 */
const page = {
  max_id: checkedByHandler({ type: 'string', description: 'Results older than this id' }),
  since_id: checkedByHandler({ type: 'string', description: 'Results newer than this id' }),
  min_id: checkedByHandler({ type: 'string', description: 'Results immediately newer than this id' }),
  limit: checkedByHandler({ type: 'integer', description: 'Page size (capped at twice the default)' }),
}

export const param = {
  text,
  requiredText,
  bool,
  int,
  list,
  object,
  objects,
  oneOf,
  checkedByHandler,
  file,
  page,
}

export type RouteParams = z.ZodObject

/** Query and body as one object, body winning; top-level `name[]` keys are read as `name`. */
function merged(req: Request): Record<string, unknown> {
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {}
  const all: Record<string, unknown> = {}
  for (const [key, value] of Object.entries({ ...(req.query as object), ...body }))
    all[key.endsWith('[]') ? key.slice(0, -2) : key] = value
  return all
}

function httpError(issues: readonly z.core.$ZodIssue[]): HttpError {
  const shape = issues.find((i) => i.message === SHAPE && !(i.code === 'custom' && i.params?.maxChars))
  if (shape) return paramMissing(String(shape.path[0] ?? ''))
  const messages = issues.map((i) =>
    i.code === 'custom' && i.params?.maxChars
      ? `${i.path.join('.')} is too long (maximum is ${i.params.maxChars} characters)`
      : i.message,
  )
  return unprocessable(`Validation failed: ${messages.join(', ')}`)
}

const parsed = new WeakMap<Request, unknown>()

/**
 * The request's parameters, parsed with its route's schema. `schema` must be the very schema the route table
 * gives the route (it is what the OpenAPI document shows); another one is a programming error.
 */
export function readParams<S extends RouteParams>(req: Request, schema: S): z.output<S> {
  const route = req.apiRoute
  if (!route || route.params !== schema)
    throw new Error(
      `${req.method} ${req.path} reads its parameters with a schema that is not its route's (packages/routes/src/table.ts)`,
    )
  if (!parsed.has(req)) {
    const result = schema.safeParse(merged(req), { error: () => SHAPE })
    if (!result.success) throw httpError(result.error.issues)
    parsed.set(req, result.data)
  }
  return parsed.get(req) as z.output<S>
}
