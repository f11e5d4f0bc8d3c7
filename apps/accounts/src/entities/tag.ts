import type { Knex } from '@roost/db'
import type { Urls } from './account'

/** A tag as rendered: a stored row, or (GET /api/v1/tags/:name of an unknown tag) an unsaved one with no id. */
export interface TagLike {
  id: string | null
  /** Normalised. */
  name: string
  display_name: string
}

const DAY_MS = 24 * 3600 * 1000

/**
 * Mastodon's tag history (Trends::History): the last 7 days, today (UTC) first, each `{day, uses, accounts}` as
 * strings: statuses that used the tag that day and how many accounts wrote them. Counted from Postgres over public
 * statuses (not reblogs) of authors who are not silenced, as Mastodon counts them for trends.
 */
export async function tagHistories(
  db: Knex,
  tagIds: string[],
): Promise<Map<string, { day: string; uses: string; accounts: string }[]>> {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
  const days = Array.from({ length: 7 }, (_, i) => today - i * DAY_MS)
  const oldest = days.at(-1)!
  const rows: { tag_id: string; day: string; uses: string; accounts: string }[] = tagIds.length
    ? await db('status_tags')
        .join('statuses', 'statuses.id', 'status_tags.status_id')
        .join('accounts', 'accounts.id', 'statuses.account_id')
        .whereIn('status_tags.tag_id', tagIds)
        // Snowflake ids start with the milliseconds: the primary key's range bounds the scan to the week.
        .where('status_tags.status_id', '>=', (BigInt(oldest) << 16n).toString())
        .where('statuses.visibility', 'public')
        .whereNull('statuses.reblog_of_id')
        .whereNull('accounts.silenced_at')
        .groupBy('status_tags.tag_id', 'day')
        .select(
          'status_tags.tag_id',
          db.raw(
            "floor(extract(epoch from date_trunc('day', statuses.created_at at time zone 'UTC')))::bigint::text as day",
          ),
          db.raw('count(*)::text as uses'),
          db.raw('count(distinct statuses.account_id)::text as accounts'),
        )
    : []
  return new Map(
    tagIds.map((id) => [
      id,
      days.map((ms) => {
        const day = String(ms / 1000)
        const row = rows.find((r) => r.tag_id === id && r.day === day)
        return { day, uses: row?.uses ?? '0', accounts: row?.accounts ?? '0' }
      }),
    ]),
  )
}

/**
 * Mastodon's Tag entity for a batch of tags: `{id, name, url, history}`, plus `following` and `featuring` for a
 * signed-in viewer. `name` is the spelling first written; `url` uses the normalised name.
 */
export async function renderTags(
  db: Knex,
  urls: Urls,
  tags: TagLike[],
  viewerId?: string,
): Promise<Record<string, unknown>[]> {
  const ids = tags.flatMap((t) => (t.id ? [t.id] : []))
  const [histories, followed, featured] = await Promise.all([
    tagHistories(db, ids),
    viewerId && ids.length
      ? (db('tag_follows').where({ account_id: viewerId }).whereIn('tag_id', ids).pluck('tag_id') as Promise<
          string[]
        >)
      : Promise.resolve([] as string[]),
    viewerId && ids.length
      ? (db('featured_tags')
          .where({ account_id: viewerId })
          .whereIn('tag_id', ids)
          .pluck('tag_id') as Promise<string[]>)
      : Promise.resolve([] as string[]),
  ])
  return tags.map((t) => ({
    id: t.id ?? '',
    name: t.display_name,
    url: `${urls.base}/tags/${encodeURIComponent(t.name)}`,
    history: (t.id && histories.get(t.id)) || emptyHistory(),
    ...(viewerId
      ? {
          following: !!t.id && followed.includes(t.id),
          featuring: !!t.id && featured.map(String).includes(String(t.id)),
        }
      : {}),
  }))
}

function emptyHistory() {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS
  return Array.from({ length: 7 }, (_, i) => ({
    day: String((today - i * DAY_MS) / 1000),
    uses: '0',
    accounts: '0',
  }))
}
