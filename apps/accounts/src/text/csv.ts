/**
 * CSV as Mastodon writes and reads it (Ruby's CSV: RFC 4180, comma-separated, `"` quoting, CRLF or LF line ends;
 * docs/security.md, "Your data").
 */

const needsQuotes = /[",\r\n]/

/** One field, quoted when it holds a comma, a quote or a line break (Ruby's CSV writes the same). */
export const csvField = (value: string) =>
  needsQuotes.test(value) ? `"${value.replace(/"/g, '""')}"` : value

/** Rows as CSV text, LF line ends (Ruby's CSV.generate). */
export const toCsv = (rows: readonly (readonly string[])[]) =>
  rows.map((r) => `${r.map(csvField).join(',')}\n`).join('')

export class CsvError extends Error {}

/**
 * Parses CSV text into rows of fields; blank lines are skipped (Mastodon reads with `skip_blanks: true`). Stops
 * with a CsvError on a malformed quote, as Ruby's MalformedCSVError, and once more than `maxRows` rows are read
 * (the caller's limit, so a huge file is never held as rows).
 */
export function parseCsv(text: string, maxRows = Infinity): { rows: string[][]; truncated: boolean } {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let i = 0
  let line = 1
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text // a byte-order mark is not data
  const endRow = () => {
    row.push(field)
    field = ''
    if (!(row.length === 1 && row[0] === '')) rows.push(row)
    row = []
  }
  while (i < input.length) {
    const c = input[i]!
    if (c === '"' && field === '') {
      // A quoted field: up to the closing quote; "" is a quote.
      i++
      for (;;) {
        if (i >= input.length) throw new CsvError(`Unclosed quoted field in line ${line}`)
        const q = input[i]!
        if (q === '"') {
          if (input[i + 1] === '"') {
            field += '"'
            i += 2
            continue
          }
          i++
          break
        }
        if (q === '\n') line++
        field += q
        i++
      }
      const next = input[i]
      if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r')
        throw new CsvError(`Any value after quoted field isn't allowed in line ${line}`)
      if (field === '') field = '\u0000' // an explicit "" is an empty value, not a blank line
      continue
    }
    if (c === '"') throw new CsvError(`Illegal quoting in line ${line}`)
    if (c === ',') {
      row.push(field === '\u0000' ? '' : field)
      field = ''
      i++
      continue
    }
    if (c === '\r' || c === '\n') {
      if (field === '\u0000') field = ''
      endRow()
      if (rows.length > maxRows) return { rows: rows.slice(0, maxRows), truncated: true }
      i += c === '\r' && input[i + 1] === '\n' ? 2 : 1
      line++
      continue
    }
    field += c
    i++
  }
  if (field !== '' || row.length) {
    if (field === '\u0000') field = ''
    endRow()
  }
  if (rows.length > maxRows) return { rows: rows.slice(0, maxRows), truncated: true }
  return { rows, truncated: false }
}
