import type { Knex } from '@roost/db'
import type { FilterContext } from '../domain/filters'
import type { FilterKeywordRow, FilterRow, FilterStatusRow } from '../db/rows'

/**
 * Filters at render time (docs/discovery.md, "Filters"): a viewer's filters in force and the matching of statuses
 * against them, as Mastodon's CustomFilter does. The Status entity reads them; domain/filters.ts changes filters.
 */

/** A filter in force for a viewer, ready to match statuses. */
export interface ActiveFilter {
  row: FilterRow
  /** All its keywords as one pattern (global, case-insensitive, Unicode); null when it has none. */
  keywords: RegExp | null
  statusIds: Set<string>
}

const WORD_CHAR = '[\\p{L}\\p{M}\\p{N}\\p{Pc}]'
const startsWithWord = new RegExp(`^${WORD_CHAR}`, 'u')
const endsWithWord = new RegExp(`${WORD_CHAR}$`, 'u')
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')

/**
 * One keyword as a pattern: `whole_word` puts a word boundary at each end of the keyword that is itself a word
 * character (so `#tag` or `c++` still match), as Mastodon's CustomFilterKeyword#to_regex.
 */
export function keywordPattern(k: Pick<FilterKeywordRow, 'keyword' | 'whole_word'>): string {
  const body = escapeRegExp(k.keyword)
  if (!k.whole_word) return body
  const start = startsWithWord.test(k.keyword) ? `(?<!${WORD_CHAR})` : ''
  const end = endsWithWord.test(k.keyword) ? `(?!${WORD_CHAR})` : ''
  return `${start}${body}${end}`
}

/** The viewer's unexpired filters, with their keywords and statuses. */
export async function activeFilters(db: Knex, accountId: string): Promise<ActiveFilter[]> {
  const rows: FilterRow[] = await db('custom_filters')
    .where({ account_id: accountId })
    .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()))
    .orderBy('id')
  if (!rows.length) return []
  const ids = rows.map((r) => r.id)
  const [keywords, statuses] = await Promise.all([
    db('custom_filter_keywords').whereIn('custom_filter_id', ids).orderBy('id') as Promise<
      FilterKeywordRow[]
    >,
    db('custom_filter_statuses').whereIn('custom_filter_id', ids) as Promise<FilterStatusRow[]>,
  ])
  return rows.map((row) => {
    const own = keywords.filter((k) => k.custom_filter_id === row.id && k.keyword)
    return {
      row,
      keywords: own.length ? new RegExp(own.map(keywordPattern).join('|'), 'giu') : null,
      statusIds: new Set(
        statuses.filter((s) => s.custom_filter_id === row.id).map((s) => String(s.status_id)),
      ),
    }
  })
}

export interface FilterMatch {
  filter: FilterRow
  keywordMatches: string[] | null
  statusMatches: string[] | null
}

/**
 * The filters a status matches: keywords against `text` (the original status's spoiler, text, poll options and
 * media descriptions), status rules against `ids` (the status and what it reblogs). Every matching filter is
 * given, whatever its context: the caller decides what a context hides.
 */
export function matchFilters(filters: ActiveFilter[], text: string, ids: string[]): FilterMatch[] {
  return filters.flatMap((f) => {
    const keywordMatches = f.keywords ? [...new Set([...text.matchAll(f.keywords)].map((m) => m[0]))] : []
    const statusMatches = ids.filter((id) => f.statusIds.has(id))
    if (!keywordMatches.length && !statusMatches.length) return []
    return [
      {
        filter: f.row,
        keywordMatches: keywordMatches.length ? keywordMatches : null,
        statusMatches: statusMatches.length ? statusMatches : null,
      },
    ]
  })
}

/**
 * Whether a rendered status is hidden in `context`: one of its filter results is a `hide` filter of that
 * context (docs/discovery.md, "Filters": Roost leaves such statuses out of lists, as v1's irreversible filters).
 */
export function hiddenIn(status: Record<string, unknown>, context: FilterContext): boolean {
  const results = (status.filtered ?? []) as { filter: { filter_action: string; context: string[] } }[]
  return results.some((r) => r.filter.filter_action === 'hide' && r.filter.context.includes(context))
}
