/**
 * Mastodon's Account entity (docs: entities/Account; mastodon/mastodon app/serializers/rest/account_serializer.rb).
 * A suspended account keeps its id, names, counts and dates and shows nothing else (api-reference §3.14).
 */
export interface AccountRow {
  id: string
  username: string
  display_name: string
  note: string
  locked: boolean
  bot: boolean
  discoverable: boolean
  indexable: boolean
  hide_collections: boolean
  fields: { name: string; value: string; verified_at: string | null }[]
  avatar_file: string | null
  header_file: string | null
  suspended_at: Date | null
  silenced_at: Date | null
  followers_count: number
  following_count: number
  statuses_count: number
  last_status_at: Date | null
  created_at: Date
}

export interface Urls {
  /** The public base URL, no trailing slash. */
  base: string
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** Plain text to Mastodon's note HTML: paragraphs on blank lines, <br> on single newlines. */
export function textToHtml(text: string): string {
  if (!text) return ''
  return text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('')
}

export const mediaUrl = (urls: Urls, file: string) => `${urls.base}/media/${file}`
export const missingAvatar = (urls: Urls) => `${urls.base}/avatars/original/missing.png`
export const missingHeader = (urls: Urls) => `${urls.base}/headers/original/missing.png`

const midnight = (d: Date) =>
  new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())).toISOString()
const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null)

export function renderAccount(row: AccountRow, urls: Urls) {
  const suspended = !!row.suspended_at
  const avatar = !suspended && row.avatar_file ? mediaUrl(urls, row.avatar_file) : missingAvatar(urls)
  const header = !suspended && row.header_file ? mediaUrl(urls, row.header_file) : missingHeader(urls)
  const url = `${urls.base}/@${row.username}`
  return {
    id: row.id,
    username: row.username,
    acct: row.username,
    display_name: suspended ? '' : row.display_name,
    locked: suspended ? false : row.locked,
    bot: suspended ? false : row.bot,
    discoverable: suspended ? false : row.discoverable,
    indexable: suspended ? false : row.indexable,
    group: false,
    created_at: midnight(row.created_at),
    note: suspended ? '' : textToHtml(row.note),
    url,
    uri: `${urls.base}/users/${row.username}`,
    avatar,
    avatar_static: avatar,
    header,
    header_static: header,
    followers_count: row.followers_count,
    following_count: row.following_count,
    statuses_count: row.statuses_count,
    last_status_at: day(row.last_status_at),
    hide_collections: row.hide_collections,
    noindex: !row.indexable,
    emojis: [],
    roles: [],
    fields: suspended
      ? []
      : row.fields.map((f) => ({
          name: f.name,
          value: textToHtml(f.value).replace(/^<p>|<\/p>$/g, ''),
          verified_at: f.verified_at,
        })),
    ...(suspended ? { suspended: true } : {}),
    ...(row.silenced_at && !suspended ? { limited: true } : {}),
  }
}

export type AccountEntity = ReturnType<typeof renderAccount>
