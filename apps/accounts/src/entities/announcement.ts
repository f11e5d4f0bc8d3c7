import type { Knex } from '@roost/db'
import type { AccountRow, AnnouncementRow } from '../db/rows'
import type { Urls } from './account'
import { extractHashtags, normalizeTag } from '../text/hashtags'
import { MENTION, statusHtml } from '../text/status'

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

/**
 * Mastodon's Announcement entity for a batch, as `viewerId` sees it (`read`, each reaction's `me`). The text is
 * formatted as a status's (paragraphs, local mentions and hashtags linked); reactions are grouped by emoji in the
 * order they were first given. Roost links no statuses and has no custom emoji (`statuses`, `emojis` empty).
 */
export async function renderAnnouncements(db: Knex, urls: Urls, rows: AnnouncementRow[], viewerId?: string) {
  const ids = rows.map((r) => r.id)
  const names = [
    ...new Set(rows.flatMap((r) => [...r.text.matchAll(MENTION)].map((m) => m[1]!.toLowerCase()))),
  ]
  const [mentioned, reactions, read] = await Promise.all([
    names.length
      ? (db('accounts').whereRaw('lower(username) = any(?)', [names]).whereNull('suspended_at') as Promise<
          AccountRow[]
        >)
      : Promise.resolve([] as AccountRow[]),
    ids.length
      ? (db('announcement_reactions')
          .whereIn('announcement_id', ids)
          .groupBy('announcement_id', 'name')
          .select('announcement_id', 'name')
          .count('* as count')
          .select(
            db.raw('bool_or(account_id = ?) as me', [viewerId ?? '0']),
            db.raw('min(created_at) as first_at'),
          )
          .orderBy('first_at') as unknown as Promise<
          { announcement_id: string; name: string; count: string; me: boolean }[]
        >)
      : Promise.resolve([]),
    viewerId && ids.length
      ? db('announcement_mutes')
          .where({ account_id: viewerId })
          .whereIn('announcement_id', ids)
          .pluck('announcement_id')
      : Promise.resolve([] as string[]),
  ])
  const byName = new Map(mentioned.map((a) => [a.username.toLowerCase(), a]))
  const readIds = new Set(read.map(String))
  return rows.map((a) => {
    const mentions = [...new Set([...a.text.matchAll(MENTION)].map((m) => m[1]!.toLowerCase()))].flatMap(
      (n) => byName.get(n) ?? [],
    )
    const tags = [...new Set(extractHashtags(a.text).map(normalizeTag))]
    return {
      id: a.id,
      content: statusHtml(a.text, byName, urls),
      starts_at: iso(a.starts_at),
      ends_at: iso(a.ends_at),
      all_day: a.all_day,
      published_at: iso(a.published_at),
      updated_at: iso(a.updated_at),
      ...(viewerId ? { read: readIds.has(a.id) } : {}),
      mentions: mentions.map((m) => ({
        id: m.id,
        username: m.username,
        url: `${urls.base}/@${m.username}`,
        acct: m.username,
      })),
      statuses: [],
      tags: tags.map((name) => ({ name, url: `${urls.base}/tags/${encodeURIComponent(name)}` })),
      emojis: [],
      reactions: reactions
        .filter((r) => String(r.announcement_id) === a.id)
        .map((r) => ({ name: r.name, count: Number(r.count), ...(viewerId ? { me: r.me } : {}) })),
    }
  })
}
