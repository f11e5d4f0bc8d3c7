import { fieldValueHtml, textToHtml } from '../text/html'
import type { AccountRow } from '../db/rows'
import { renderCustomEmoji } from './custom_emoji'

export interface Urls {
  /** The public base URL, no trailing slash. */
  base: string
  /** Where stored media files are served from, no trailing slash (docs/media.md, "Where files are kept"). */
  media: string
}

export const mediaUrl = (urls: Urls, file: string) => `${urls.media}/${file}`
export const missingAvatar = (urls: Urls) => `${urls.base}/avatars/original/missing.png`
export const missingHeader = (urls: Urls) => `${urls.base}/headers/original/missing.png`

const midnight = (d: Date) =>
  new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())).toISOString()
const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null)

/** An account's avatar: its upload, a remote account's own image (linked, not copied yet), or the default. */
export const avatarOf = (row: Pick<AccountRow, 'avatar_file' | 'avatar_remote_url'>, urls: Urls) =>
  row.avatar_file ? mediaUrl(urls, row.avatar_file) : (row.avatar_remote_url ?? missingAvatar(urls))
const headerOf = (row: AccountRow, urls: Urls) =>
  row.header_file ? mediaUrl(urls, row.header_file) : (row.header_remote_url ?? missingHeader(urls))

/**
 * Mastodon's Account entity. `group` is a Group actor (a Lemmy community, a PeerTube channel); `moved` the account it
 * moved to, present only when it moved and never nested (Mastodon's `moved_and_not_nested?`), from `row.moved_to`
 * (queries/accounts.ts, `withMovedTo`; docs/federation.md, "Moved accounts").
 */
export function renderAccount(
  row: AccountRow,
  urls: Urls,
  nested = false,
): Record<string, unknown> & {
  id: string
  username: string
  acct: string
  url: string
  display_name: string
  avatar: string
} {
  const suspended = !!row.suspended_at
  const avatar = suspended ? missingAvatar(urls) : avatarOf(row, urls)
  const header = suspended ? missingHeader(urls) : headerOf(row, urls)
  // A remote account (docs/federation.md, "Remote accounts") is `user@domain`, with its own URLs.
  const url = row.domain ? (row.url ?? row.uri ?? '') : `${urls.base}/@${row.username}`
  return {
    id: row.id,
    username: row.username,
    acct: row.domain ? `${row.username}@${row.domain}` : row.username,
    display_name: suspended ? '' : row.display_name,
    locked: suspended ? false : row.locked,
    bot: suspended ? false : row.bot,
    discoverable: suspended ? false : row.discoverable,
    indexable: suspended ? false : row.indexable,
    group: row.actor_type === 'Group',
    created_at: midnight(row.created_at),
    note: suspended ? '' : textToHtml(row.note),
    url,
    uri: row.domain ? (row.uri ?? '') : `${urls.base}/users/${row.username}`,
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
    // The custom emojis of its name, bio and fields, kept on the account (docs/emoji.md).
    emojis: suspended ? [] : (row.emojis ?? []).map((e) => renderCustomEmoji(e, urls)),
    // The role badge read with the account (roleBadgeSql in users/roles.ts); else a seeded role's (users.role alone).
    roles: suspended
      ? []
      : row.role_badge !== undefined
        ? row.role_badge
          ? [row.role_badge]
          : []
        : row.role
          ? highlightedRoles(row.role)
          : [],
    fields: suspended
      ? []
      : row.fields.map((f) => ({
          name: f.name,
          value: fieldValueHtml(f.value),
          verified_at: f.verified_at,
        })),
    ...(row.moved_to && !nested && !suspended ? { moved: renderAccount(row.moved_to, urls, true) } : {}),
    ...(suspended ? { suspended: true } : {}),
    ...(row.silenced_at && !suspended ? { limited: true } : {}),
  }
}

/**
 * Mastodon's Role entity (docs: entities/Role) of the seeded roles, as migration 20261130040001_user_roles seeds
 * them (`-99` is "everyone"; Moderator 1, Admin 2, Owner 3), for rows read without their role; the credential
 * account and the admin entities read the role itself (users/roles.ts).
 */
const ROLES: Record<
  string,
  { id: string; name: string; permissions: string; color: string; highlighted: boolean }
> = {
  user: { id: '-99', name: '', permissions: '65536', color: '', highlighted: false },
  moderator: { id: '1', name: 'Moderator', permissions: '1308', color: '', highlighted: true },
  admin: { id: '2', name: 'Admin', permissions: '983036', color: '', highlighted: true },
  owner: { id: '3', name: 'Owner', permissions: '1', color: '', highlighted: true },
}

export const roleEntity = (role: string) => ROLES[role] ?? ROLES.user!

/** The Account's `roles`: only highlighted roles, as `{id, name, color}`. */
function highlightedRoles(role: string) {
  const r = roleEntity(role)
  return r.highlighted ? [{ id: r.id, name: r.name, color: r.color }] : []
}

/** The user settings CredentialAccount's `source` reads. */
export interface SourceSettings {
  default_privacy: string
  default_sensitive: boolean
  default_language: string | null
  role: string
}

/** CredentialAccount (docs: entities/Account#CredentialAccount): the Account plus `source` and `role`. */
export function renderCredentialAccount(
  row: AccountRow,
  user: SourceSettings,
  urls: Urls,
  followRequestsCount: number,
) {
  return {
    ...renderAccount({ ...row, role: user.role }, urls),
    source: {
      privacy: user.default_privacy,
      sensitive: user.default_sensitive,
      language: user.default_language,
      note: row.note,
      fields: row.fields.map((f) => ({ name: f.name, value: f.value, verified_at: f.verified_at })),
      follow_requests_count: followRequestsCount,
      hide_collections: row.hide_collections,
      discoverable: row.discoverable,
      indexable: row.indexable,
      attribution_domains: [] as string[],
      quote_policy: 'public',
    },
    role: roleEntity(user.role),
  }
}

/**
 * What absolute URLs are made of: the public address clients use, and where media files are served from (the
 * media settings of src/config.ts; only PUBLIC_URL is needed when files are in MEDIA_DIR).
 */
export interface UrlSettings {
  PUBLIC_URL: string
  S3_ENABLED?: boolean
  S3_BUCKET?: string
  S3_REGION?: string
  S3_ENDPOINT?: string
  S3_OVERRIDE_PATH_STYLE?: boolean
  S3_PROTOCOL?: string
  S3_HOSTNAME?: string
  S3_ALIAS_HOST?: string
}

/**
 * Where the files of a bucket are served from (docs/media.md, "Where files are kept"), as Mastodon builds its
 * attachment URLs: S3_ALIAS_HOST (a CDN) first; then S3_HOSTNAME by path; then the S3 endpoint itself, by path or,
 * with S3_OVERRIDE_PATH_STYLE, on the bucket's own host; AWS's regional endpoint when there is no endpoint.
 */
export function bucketUrl(settings: UrlSettings): string {
  const protocol = settings.S3_PROTOCOL ?? 'https'
  const bucket = settings.S3_BUCKET ?? ''
  if (settings.S3_ALIAS_HOST) return `${protocol}://${settings.S3_ALIAS_HOST.replace(/\/+$/, '')}`
  if (settings.S3_HOSTNAME) return `${protocol}://${settings.S3_HOSTNAME.replace(/\/+$/, '')}/${bucket}`
  const endpoint = new URL(
    settings.S3_ENDPOINT ?? `https://s3.${settings.S3_REGION ?? 'us-east-1'}.amazonaws.com`,
  )
  if (settings.S3_OVERRIDE_PATH_STYLE) endpoint.hostname = `${bucket}.${endpoint.hostname}`
  const base = endpoint.toString().replace(/\/+$/, '')
  return settings.S3_OVERRIDE_PATH_STYLE ? base : `${base}/${bucket}`
}

/** The bases for absolute URLs, without trailing slashes: PUBLIC_URL, and where stored files are served from. */
export function urlsOf(settings: UrlSettings): Urls {
  const base = settings.PUBLIC_URL.replace(/\/$/, '')
  return { base, media: settings.S3_ENABLED ? bucketUrl(settings) : `${base}/media` }
}
