import type { Knex } from '@roost/db'
import type { Page } from '@roost/service'
import type { NotificationRow } from '../db/rows'

/**
 * Grouped notifications (docs/discovery.md, "Grouped notifications"), as Mastodon's Notification::Groups and
 * NotificationGroup: a page is up to `limit` groups, each represented by the first notification met of it while
 * reading the user's notifications in id order; a group's figures come from all its notifications up to the page.
 */

/** The types Mastodon groups (docs/discovery.md, "Grouped notifications"). */
export const GROUPABLE_TYPES: readonly string[] = ['favourite', 'reblog', 'follow', 'admin.sign_up']

export interface Browse {
  types?: string[]
  excludeTypes?: string[]
  /** Include those the notification policy filtered (docs/discovery.md, "Notification policy and requests"). */
  includeFiltered?: boolean
}

/** The user's notifications from senders who are not suspended, of the requested types, not filtered unless asked. */
export function browsable(db: Knex, accountId: string, browse: Browse = {}) {
  const query = db('notifications')
    .join('accounts', 'accounts.id', 'notifications.from_account_id')
    .where('notifications.account_id', accountId)
    .whereNull('accounts.suspended_at')
    .select('notifications.*')
  if (browse.types?.length) query.whereIn('notifications.type', browse.types)
  if (browse.excludeTypes?.length) query.whereNotIn('notifications.type', browse.excludeTypes)
  if (!browse.includeFiltered) query.where('notifications.filtered', false)
  return query
}

/** The types grouped on this request: `grouped_types[]` restricted to the groupable ones, else all of them. */
export function groupedTypesOf(requested: string[] | undefined): string[] {
  return requested?.length ? requested.filter((t) => GROUPABLE_TYPES.includes(t)) : [...GROUPABLE_TYPES]
}

/** A notification's group on this request: its group key when its type is grouped, else `ungrouped-<id>`. */
export function groupKeyOf(row: NotificationRow, groupedTypes: string[]): string {
  return row.group_key && groupedTypes.includes(row.type) ? row.group_key : `ungrouped-${row.id}`
}

/**
 * Up to `page.limit` groups, newest first: reads notifications below `max_id` (and above `since_id`) newest
 * first — or, with `min_id`, those just above it oldest first — keeping the first notification of each group
 * met. Notifications of a group already met are skipped (they are counted in its figures).
 */
export async function pageGroups(
  query: () => Knex.QueryBuilder,
  page: Page,
  groupedTypes: string[],
): Promise<NotificationRow[]> {
  if (page.limit <= 0) return []
  const ascending = page.minId !== undefined
  const batch = Math.min(Math.max(page.limit * 2, 40), 200)
  const seen = new Set<string>()
  const selected: NotificationRow[] = []
  let cursor: string | undefined
  for (;;) {
    const q = query().limit(batch)
    if (ascending) {
      q.where('notifications.id', '>', cursor ?? page.minId!).orderBy('notifications.id', 'asc')
      if (page.maxId) q.where('notifications.id', '<', page.maxId)
    } else {
      const below = cursor ?? page.maxId
      if (below) q.where('notifications.id', '<', below)
      if (page.sinceId) q.where('notifications.id', '>', page.sinceId)
      q.orderBy('notifications.id', 'desc')
    }
    const rows: NotificationRow[] = await q
    for (const row of rows) {
      const key = groupKeyOf(row, groupedTypes)
      if (seen.has(key)) continue
      seen.add(key)
      selected.push(row)
      if (selected.length === page.limit) return ascending ? selected.reverse() : selected
    }
    if (rows.length < batch) return ascending ? selected.reverse() : selected
    cursor = String(rows.at(-1)!.id)
  }
}

export interface GroupData {
  mostRecentId: string
  /** Newest first, at most 8. */
  sampleAccountIds: string[]
  count: number
  /** The oldest notification of the group on the page (its range), else the most recent. */
  pageMinId: string
  latestAt: Date
}

export const SAMPLE_ACCOUNTS_SIZE = 8

/**
 * The figures of `keys` (real group keys) as Mastodon's NotificationGroup.load_groups_data: the group's
 * notifications up to `range.max` (all without a range) give the most recent one, its time, the count and the
 * sample accounts; `pageMinId` is its oldest notification not below `range.min`.
 */
export async function groupsData(
  db: Knex,
  accountId: string,
  keys: string[],
  range?: { min: string; max: string },
): Promise<Map<string, GroupData>> {
  if (!keys.length) return new Map()
  const max = range?.max ?? '9223372036854775807'
  const min = range?.min ?? '0'
  const { rows } = await db.raw<{
    rows: {
      group_key: string
      most_recent_id: string
      sample: string[]
      count: string
      min_id: string | null
      latest_at: Date
    }[]
  }>(
    `SELECT g.group_key,
       (SELECT id FROM notifications n WHERE n.account_id = :account AND n.group_key = g.group_key AND n.id <= :max
          ORDER BY id DESC LIMIT 1) AS most_recent_id,
       array(SELECT from_account_id::text FROM (
          SELECT DISTINCT ON (from_account_id) from_account_id, id FROM notifications n
          WHERE n.account_id = :account AND n.group_key = g.group_key AND n.id <= :max
          ORDER BY from_account_id, id DESC) s ORDER BY s.id DESC LIMIT :sample) AS sample,
       (SELECT count(*) FROM notifications n WHERE n.account_id = :account AND n.group_key = g.group_key
          AND n.id <= :max) AS count,
       (SELECT id FROM notifications n WHERE n.account_id = :account AND n.group_key = g.group_key AND n.id >= :min
          AND n.id <= :max ORDER BY id ASC LIMIT 1) AS min_id,
       (SELECT created_at FROM notifications n WHERE n.account_id = :account AND n.group_key = g.group_key
          AND n.id <= :max ORDER BY id DESC LIMIT 1) AS latest_at
     FROM json_array_elements_text(:keys::json) AS g(group_key)`,
    { account: accountId, max, min, sample: SAMPLE_ACCOUNTS_SIZE, keys: JSON.stringify(keys) },
  )
  return new Map(
    rows
      .filter((r) => r.most_recent_id !== null)
      .map((r) => [
        r.group_key,
        {
          mostRecentId: String(r.most_recent_id),
          sampleAccountIds: r.sample,
          count: Number(r.count),
          pageMinId: String(r.min_id ?? r.most_recent_id),
          latestAt: r.latest_at,
        },
      ]),
  )
}
