import type { Knex } from '@roost/db'
import { Invalid } from '@roost/errors'
import type { ImportRow, ImportType } from '../db/rows'
import { CsvError, parseCsv } from '../text/csv'
import * as outbox from '../outbox/outbox'

/**
 * CSV imports (docs/security.md, "Your data"), read as Mastodon's Form::Import reads them
 * (app/models/form/import.rb): the same types, headers, limits and conversions; the rows wait in the import's row
 * and the accounts worker applies them (worker/account-data.ts), as Mastodon's BulkImportWorker.
 */

/** Mastodon's Form::Import::FILE_SIZE_LIMIT (20 MB) and ROWS_PROCESSING_LIMIT (20,000). */
export const IMPORT_FILE_SIZE_LIMIT = 20 * 1024 * 1024
export const IMPORT_ROWS_LIMIT = 20_000

export const IMPORT_TYPES: readonly ImportType[] = [
  'following',
  'blocking',
  'muting',
  'domain_blocking',
  'bookmarks',
  'lists',
]

/** Form::Import::EXPECTED_HEADERS_BY_TYPE: the columns of each type, in Mastodon's order. */
export const EXPECTED_HEADERS: Record<ImportType, readonly string[]> = {
  following: ['Account address', 'Show boosts', 'Notify on new posts', 'Languages'],
  blocking: ['Account address'],
  muting: ['Account address', 'Hide notifications'],
  domain_blocking: ['#domain'],
  bookmarks: ['#uri'],
  lists: ['List name', 'Account address'],
}

/** Form::Import#default_csv_headers: the columns a file without a header row is read with. */
const DEFAULT_HEADERS: Record<ImportType, readonly string[]> = {
  following: ['Account address'],
  blocking: ['Account address'],
  muting: ['Account address'],
  domain_blocking: ['#domain'],
  bookmarks: ['#uri'],
  lists: ['List name', 'Account address'],
}

/** Form::Import::KNOWN_FIRST_HEADERS: a first row starting with one of these is a header row. */
const KNOWN_FIRST_HEADERS = new Set(Object.values(EXPECTED_HEADERS).map((h) => h[0]!))

/** Form::Import::ATTRIBUTE_BY_HEADER: the row's attribute of each column. */
const ATTRIBUTE: Record<string, string> = {
  'Account address': 'acct',
  'Show boosts': 'show_reblogs',
  'Notify on new posts': 'notify',
  Languages: 'languages',
  'Hide notifications': 'hide_notifications',
  '#domain': 'domain',
  '#uri': 'uri',
  'List name': 'list_name',
}

/** ActiveModel's Boolean cast of a field (Form::Import's converter): blank is nil, "false", "0", "off"… false. */
function castBoolean(field: string | undefined): boolean | null {
  if (field === undefined || field === '') return null
  return !['0', 'f', 'false', 'off'].includes(field.toLowerCase())
}

/** Form::Import's csv_converter: each column's value as Mastodon converts it. */
function convert(header: string, field: string | undefined): unknown {
  switch (header) {
    case 'Show boosts':
    case 'Notify on new posts':
    case 'Hide notifications':
      return castBoolean(field)
    case 'Languages': {
      const list = (field ?? '')
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean)
      return list.length ? list : null
    }
    case 'Account address':
      return (field ?? '').trim().replace(/^@/, '')
    case '#domain':
      return (field ?? '').trim().toLowerCase()
    default:
      return (field ?? '').trim()
  }
}

export interface ParsedImport {
  rows: Record<string, unknown>[]
}

/**
 * Reads an uploaded file as `type`, refusing (Invalid, with Mastodon's messages) a file over 20 MB, one that is not
 * UTF-8 text or not CSV, an empty one, one without the type's columns, and one of more than 20,000 rows.
 */
export function parseImport(type: ImportType, data: Buffer): ParsedImport {
  if (data.length > IMPORT_FILE_SIZE_LIMIT)
    throw new Invalid('Validation failed: Data file is too large (maximum is 20 MB)')
  const text = new TextDecoder('utf-8', { fatal: false }).decode(data)
  if (text.includes('\uFFFD') || text.includes('\u0000'))
    throw new Invalid('Validation failed: Data is not a UTF-8 text file')
  let parsed
  try {
    // One more than a header and the limit: enough to tell a file is over it.
    parsed = parseCsv(text, IMPORT_ROWS_LIMIT + 2)
  } catch (err) {
    if (err instanceof CsvError)
      throw new Invalid(`Validation failed: Data is not a valid CSV file: ${err.message}`)
    throw err
  }
  const all = parsed.rows
  if (!all.length) throw new Invalid('Validation failed: Data file is empty')
  const first = all[0]!
  const hasHeader = KNOWN_FIRST_HEADERS.has(first[0]!.trim())
  const headers = hasHeader ? first.map((h) => h.trim()) : [...DEFAULT_HEADERS[type]]
  if (!DEFAULT_HEADERS[type].every((h) => headers.includes(h)))
    throw new Invalid(
      `Validation failed: Data does not have the columns of this import type (expected ${EXPECTED_HEADERS[type].join(', ')}): is it the right file?`,
    )
  const data_ = hasHeader ? all.slice(1) : all
  if (data_.length > IMPORT_ROWS_LIMIT || parsed.truncated)
    throw new Invalid(
      `Validation failed: Data has more rows than the ${IMPORT_ROWS_LIMIT} that can be imported at once`,
    )
  const expected = EXPECTED_HEADERS[type]
  const rows = data_.map((fields) => {
    const row: Record<string, unknown> = {}
    headers.forEach((h, i) => {
      if (expected.includes(h)) row[ATTRIBUTE[h]!] = convert(h, fields[i])
    })
    return row
  })
  return { rows }
}

export function readImportType(value: unknown): ImportType {
  if (typeof value === 'string' && (IMPORT_TYPES as readonly string[]).includes(value))
    return value as ImportType
  throw new Invalid(`Validation failed: Type must be one of ${IMPORT_TYPES.join(', ')}`)
}

export function readImportMode(value: unknown): boolean {
  if (value === undefined || value === 'merge') return false
  if (value === 'overwrite') return true
  throw new Invalid('Validation failed: Mode must be merge or overwrite')
}

/** Records the import and its `import.requested`, in the caller's transaction. */
export async function createImport(
  trx: Knex,
  accountId: string,
  type: ImportType,
  overwrite: boolean,
  filename: string | null,
  parsed: ParsedImport,
): Promise<ImportRow> {
  const [row] = await trx('imports')
    .insert({
      account_id: accountId,
      type,
      overwrite,
      original_filename: filename?.slice(0, 255) ?? null,
      rows: JSON.stringify(parsed.rows),
      total_items: parsed.rows.length,
    })
    .returning('*')
  await outbox.add(trx, { event: 'import.requested', importId: row.id })
  return row as ImportRow
}
