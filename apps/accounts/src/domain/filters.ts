import type { Knex } from '@roost/db'
import { Invalid, NotFound } from '@roost/errors'
import * as outbox from '../outbox/outbox'
import { hiddenIn } from '../queries/filters'
import { parseId } from './records'
import type { FilterAction, FilterKeywordRow, FilterRow, FilterStatusRow } from '../db/rows'

/**
 * Filters v2 (docs/discovery.md, "Filters"): a user's filters with their keywords and statuses, which
 * queries/filters.ts matches statuses against at render time. Every change to a filter, a keyword or a status rule
 * records `filters.changed`, which tells the owner's `user` stream `filters_changed` (docs/streaming.md).
 */

export const FILTER_CONTEXTS = ['home', 'notifications', 'public', 'thread', 'account'] as const
export type FilterContext = (typeof FILTER_CONTEXTS)[number]

export interface FilterInput {
  title?: string
  context?: string[]
  filter_action?: FilterAction
  /** Seconds from now as text; '' clears the expiry; undefined leaves it. */
  expires_in?: string
  keywords?: { id?: string; keyword?: string; whole_word?: boolean; _destroy?: boolean }[]
}

/** `expires_in` as a date: '' is never, a whole number of seconds from now; undefined: not given. */
function expiresAt(expiresIn: string | undefined): Date | null | undefined {
  if (expiresIn === undefined) return undefined
  if (expiresIn.trim() === '') return null
  if (!/^\s*\d+\s*$/.test(expiresIn)) throw new Invalid('Validation failed: Expires in is not a number')
  return new Date(Date.now() + Number(expiresIn) * 1000)
}

function checkFilter(title: string, context: string[]) {
  const errors: string[] = []
  if (!title.trim()) errors.push("Title can't be blank")
  if (!context.length) errors.push("Context can't be blank")
  else if (context.some((c) => !(FILTER_CONTEXTS as readonly string[]).includes(c)))
    errors.push('Context None or invalid context supplied')
  if (errors.length) throw new Invalid(`Validation failed: ${errors.join(', ')}`)
}

function checkKeyword(keyword: string | undefined): string {
  if (!keyword?.trim()) throw new Invalid("Validation failed: Keyword can't be blank")
  return keyword
}

/** Records that `accountId`'s filters changed, in the transaction that changed them. */
const changed = (trx: Knex, accountId: string) =>
  outbox.add(trx, { event: 'filters.changed', accountId: String(accountId) })

/** Blank context entries are dropped, as Mastodon's. */
const cleanContext = (context: string[]) => [...new Set(context.map((c) => c.trim()).filter(Boolean))]

/** A filter of `accountId` by id; another user's or an unknown one is 404. */
export async function ownFilter(db: Knex, accountId: string, id: unknown): Promise<FilterRow> {
  const filterId = parseId(id)
  const row: FilterRow | undefined = filterId
    ? await db('custom_filters').where({ id: filterId, account_id: accountId }).first()
    : undefined
  if (!row) throw new NotFound()
  return row
}

/** A keyword of one of `accountId`'s filters by id, with its filter; else 404. */
export async function ownKeyword(db: Knex, accountId: string, id: unknown) {
  const keywordId = parseId(id)
  const row: FilterKeywordRow | undefined = keywordId
    ? await db('custom_filter_keywords')
        .join('custom_filters', 'custom_filters.id', 'custom_filter_keywords.custom_filter_id')
        .where({ 'custom_filter_keywords.id': keywordId, 'custom_filters.account_id': accountId })
        .first('custom_filter_keywords.*')
    : undefined
  if (!row) throw new NotFound()
  return row
}

/** A status rule of one of `accountId`'s filters by id; else 404. */
export async function ownFilterStatus(db: Knex, accountId: string, id: unknown) {
  const ruleId = parseId(id)
  const row: FilterStatusRow | undefined = ruleId
    ? await db('custom_filter_statuses')
        .join('custom_filters', 'custom_filters.id', 'custom_filter_statuses.custom_filter_id')
        .where({ 'custom_filter_statuses.id': ruleId, 'custom_filters.account_id': accountId })
        .first('custom_filter_statuses.*')
    : undefined
  if (!row) throw new NotFound()
  return row
}

async function applyKeywords(trx: Knex, filterId: string, keywords: NonNullable<FilterInput['keywords']>) {
  for (const k of keywords) {
    if (k.id !== undefined && k.id !== '') {
      const id = parseId(k.id)
      const existing: FilterKeywordRow | undefined = id
        ? await trx('custom_filter_keywords').where({ id, custom_filter_id: filterId }).first()
        : undefined
      if (!existing) throw new NotFound()
      if (k._destroy) {
        await trx('custom_filter_keywords').where({ id: existing.id }).delete()
        continue
      }
      await trx('custom_filter_keywords')
        .where({ id: existing.id })
        .update({
          keyword: k.keyword === undefined ? existing.keyword : checkKeyword(k.keyword),
          whole_word: k.whole_word ?? existing.whole_word,
          updated_at: trx.fn.now(),
        })
    } else if (!k._destroy) {
      await trx('custom_filter_keywords').insert({
        custom_filter_id: filterId,
        keyword: checkKeyword(k.keyword),
        whole_word: k.whole_word ?? true,
      })
    }
  }
}

/** Creates a filter with its keywords, in the caller's transaction. */
export async function createFilter(trx: Knex, accountId: string, input: FilterInput): Promise<FilterRow> {
  const title = input.title ?? ''
  const context = cleanContext(input.context ?? [])
  checkFilter(title, context)
  const [row] = await trx('custom_filters')
    .insert({
      account_id: accountId,
      title,
      context,
      filter_action: input.filter_action ?? 'warn',
      expires_at: expiresAt(input.expires_in) ?? null,
    })
    .returning('*')
  await applyKeywords(trx, row.id, input.keywords ?? [])
  await changed(trx, accountId)
  return row as FilterRow
}

/** Updates what `input` gives of a filter (keywords by id: changed, `_destroy`ed, or added without id). */
export async function updateFilter(trx: Knex, filter: FilterRow, input: FilterInput): Promise<FilterRow> {
  const title = input.title ?? filter.title
  const context = input.context === undefined ? filter.context : cleanContext(input.context)
  checkFilter(title, context)
  const expires = expiresAt(input.expires_in)
  const [row] = await trx('custom_filters')
    .where({ id: filter.id })
    .update({
      title,
      context,
      filter_action: input.filter_action ?? filter.filter_action,
      ...(expires === undefined ? {} : { expires_at: expires }),
      updated_at: trx.fn.now(),
    })
    .returning('*')
  await applyKeywords(trx, filter.id, input.keywords ?? [])
  await changed(trx, filter.account_id)
  return row as FilterRow
}

/** Deletes a filter with its keywords and statuses. */
export async function deleteFilter(trx: Knex, filter: FilterRow) {
  await trx('custom_filters').where({ id: filter.id }).delete()
  await changed(trx, filter.account_id)
}

export async function addKeyword(
  trx: Knex,
  filter: FilterRow,
  keyword: string | undefined,
  wholeWord?: boolean,
) {
  const [row] = await trx('custom_filter_keywords')
    .insert({ custom_filter_id: filter.id, keyword: checkKeyword(keyword), whole_word: wholeWord ?? true })
    .returning('*')
  await changed(trx, filter.account_id)
  return row as FilterKeywordRow
}

/** Changes a keyword of `accountId`'s (found with ownKeyword). */
export async function updateKeyword(
  trx: Knex,
  accountId: string,
  keyword: FilterKeywordRow,
  input: { keyword?: string; whole_word?: boolean },
) {
  const [row] = await trx('custom_filter_keywords')
    .where({ id: keyword.id })
    .update({
      keyword: input.keyword === undefined ? keyword.keyword : checkKeyword(input.keyword),
      whole_word: input.whole_word ?? keyword.whole_word,
      updated_at: trx.fn.now(),
    })
    .returning('*')
  await changed(trx, accountId)
  return row as FilterKeywordRow
}

/** Deletes a keyword of `accountId`'s (found with ownKeyword); its filter stays, as Mastodon's. */
export async function deleteKeyword(trx: Knex, accountId: string, keyword: FilterKeywordRow) {
  await trx('custom_filter_keywords').where({ id: keyword.id }).delete()
  await changed(trx, accountId)
}

/** Adds a status to a filter: an unknown status is 422 as Mastodon's `belongs_to`, a repeated one too. */
export async function addFilterStatus(trx: Knex, filter: FilterRow, statusId: string | undefined) {
  const id = parseId(statusId)
  if (!id || !(await trx('statuses').where({ id }).first('id')))
    throw new Invalid('Validation failed: Status must exist')
  const [row] = await trx('custom_filter_statuses')
    .insert({ custom_filter_id: filter.id, status_id: id })
    .onConflict(['custom_filter_id', 'status_id'])
    .ignore()
    .returning('*')
  if (!row) throw new Invalid('Validation failed: Status has already been taken')
  await changed(trx, filter.account_id)
  return row as FilterStatusRow
}

/** Takes a status out of a filter of `accountId`'s (found with ownFilterStatus). */
export async function deleteFilterStatus(trx: Knex, accountId: string, rule: FilterStatusRow) {
  await trx('custom_filter_statuses').where({ id: rule.id }).delete()
  await changed(trx, accountId)
}

/** The rendered statuses not hidden in `context`. */
export function withoutHidden<T extends Record<string, unknown>>(statuses: T[], context: FilterContext): T[] {
  return statuses.filter((s) => !hiddenIn(s, context))
}
