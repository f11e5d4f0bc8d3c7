import type { Knex } from '@roost/db'
import type { FilterKeywordRow, FilterRow, FilterStatusRow } from '../db/rows'
import type { FilterMatch } from '../queries/filters'

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

/** Mastodon's Filter entity without its rules (as nested in a FilterResult). */
export function renderFilterHead(f: FilterRow) {
  return {
    id: String(f.id),
    title: f.title,
    context: f.context,
    expires_at: iso(f.expires_at),
    filter_action: f.filter_action,
  }
}

export const renderKeyword = (k: FilterKeywordRow) => ({
  id: String(k.id),
  keyword: k.keyword,
  whole_word: k.whole_word,
})

export const renderFilterStatus = (s: FilterStatusRow) => ({
  id: String(s.id),
  status_id: String(s.status_id),
})

/** Mastodon's Filter entity with its keywords and statuses, for a batch of filters. */
export async function renderFilters(db: Knex, rows: FilterRow[]) {
  const ids = rows.map((r) => r.id)
  const [keywords, statuses] = ids.length
    ? await Promise.all([
        db('custom_filter_keywords').whereIn('custom_filter_id', ids).orderBy('id') as Promise<
          FilterKeywordRow[]
        >,
        db('custom_filter_statuses').whereIn('custom_filter_id', ids).orderBy('id') as Promise<
          FilterStatusRow[]
        >,
      ])
    : [[], []]
  return rows.map((f) => ({
    ...renderFilterHead(f),
    keywords: keywords.filter((k) => k.custom_filter_id === f.id).map(renderKeyword),
    statuses: statuses.filter((s) => s.custom_filter_id === f.id).map(renderFilterStatus),
  }))
}

/** Mastodon's FilterResult. */
export const renderFilterResult = (m: FilterMatch) => ({
  filter: renderFilterHead(m.filter),
  keyword_matches: m.keywordMatches,
  status_matches: m.statusMatches,
})

/** The v1 Filter entity: one keyword of a v2 filter (its id is the keyword's). */
export function renderFilterV1(k: FilterKeywordRow, f: FilterRow) {
  return {
    id: String(k.id),
    phrase: k.keyword,
    context: f.context,
    whole_word: k.whole_word,
    expires_at: iso(f.expires_at),
    irreversible: f.filter_action === 'hide',
  }
}
