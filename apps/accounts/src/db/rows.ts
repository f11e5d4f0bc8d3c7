import type { IpSeverity } from '@roost/auth'
import type { OutboxEvent } from '@roost/events'

/**
 * The rows of the accounts schema, as knex returns them (bigint ids and counts as strings), and the row types of the
 * joins that several modules read. The bottom layer: it imports nothing of the app (docs/architecture.md, "Layers").
 */

/** An admin domain block's severity (Mastodon's DomainBlock). */
export type DomainBlockSeverity = 'silence' | 'suspend' | 'noop'

export type FilterAction = 'warn' | 'hide' | 'blur'

/** The timelines a marker can be kept for (Mastodon's Marker::TIMELINES). */
export type MarkerTimeline = 'home' | 'notifications'

/**
 * Mastodon's Account entity (docs: entities/Account; mastodon/mastodon app/serializers/rest/account_serializer.rb).
 * A suspended account keeps its id, names, counts and dates and shows nothing else (docs/mastodon-compatibility.md, "Accounts").
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
  /** A moderator's "sensitive" action: its media read as sensitive (docs/moderation.md). */
  sensitized_at?: Date | null
  followers_count: number
  following_count: number
  statuses_count: number
  last_status_at: Date | null
  created_at: Date
  updated_at?: Date
  /** The owner's role, when the query joined `users` (local accounts always have one). */
  role?: string | null
  /** The owner's highlighted role as the Account's `roles` show it, when the query read it (users/roles.ts). */
  role_badge?: { id: string; name: string; color: string } | null
  /** Null for local accounts; a remote account's `host[:port]` (docs/federation.md, "Remote accounts"). */
  domain?: string | null
  uri?: string | null
  url?: string | null
  inbox_url?: string | null
  shared_inbox_url?: string | null
  outbox_url?: string | null
  followers_url?: string | null
  following_url?: string | null
  featured_url?: string | null
  actor_type?: string | null
  public_key?: string | null
  public_key_id?: string | null
  private_key?: string | null
  avatar_remote_url?: string | null
  header_remote_url?: string | null
  fetched_at?: Date | null
  /** The account this one moved to (Mastodon's `moved_to_account_id`; docs/federation.md, "Moved accounts"). */
  moved_to_account_id?: string | null
  /** The actor URIs this account says it also is (`alsoKnownAs`), the aliases a Move to it needs. */
  also_known_as?: string[]
  /** A remote actor's `featuredTags` collection. */
  featured_tags_url?: string | null
  /** The moved-to account, attached by the queries that render accounts (`withMovedTo`). */
  moved_to?: AccountRow | null
  /** The custom emojis its name, bio and fields use, as rendered rows (domain/custom_emojis.ts). */
  emojis?: AccountEmoji[]
  /** Deleted by its owner: the row stays, suspended and emptied, to keep the username (domain/deletion.ts). */
  deleted_at?: Date | null
}

/** One custom emoji an account's profile uses, kept on the account (`accounts.emojis`). */
export interface AccountEmoji {
  /** For the actor's Emoji tags: the emoji's id, its image's type and its last change. */
  id?: string
  content_type?: string | null
  updated_at?: string
  shortcode: string
  file: string
  static_file: string | null
  visible_in_picker: boolean
  category: string | null
}

/** A custom emoji (docs/emoji.md): local (`domain` null) or another server's, its image copied (`file`). */
export interface CustomEmojiRow {
  id: string
  shortcode: string
  domain: string | null
  /** Empty until a remote emoji's image is copied. */
  file: string
  /** The first frame as PNG (Mastodon's `static` style). */
  static_file: string | null
  content_type: string | null
  uri: string | null
  image_remote_url: string | null
  remote_updated_at: Date | null
  needs_fetch: boolean
  visible_in_picker: boolean
  disabled: boolean
  category: string | null
  created_at: Date
  updated_at: Date
}

export interface UserRow {
  id: string
  account_id: string
  email: string
  encrypted_password: string
  locale: string
  role: string
  approved: boolean
  disabled: boolean
  confirmed_at: Date | null
  /** The posting default of the user's preferences, a status's visibility. */
  default_privacy: StatusRow['visibility']
  /** Mastodon's `default_quote_policy`: public, followers or nobody. */
  default_quote_policy?: 'public' | 'followers' | 'nobody'
  default_sensitive: boolean
  default_language: string | null
  sign_up_reason: string | null
  created_by_application_id: string | null
  created_at: Date
  /** The last API use, at a day's precision (Mastodon's user tracking). */
  current_sign_in_at: Date
  /** The last change or reset of the password: the OAuth pages' sign-in sessions begun before it are over. */
  password_changed_at: Date | null
  /** The TOTP secret (base32), set when enrolment begins (docs/security.md, "Two-factor sign-in"). */
  otp_secret: string | null
  /** Two-factor sign-in is on since then: a first code proved the enrolment. */
  otp_enabled_at: Date | null
  /** The last TOTP time step accepted: a code is never accepted twice. */
  otp_last_step: string | null
  /** The unused recovery codes, each as its scrypt hash. */
  otp_backup_codes: string[]
  /** An address asked for in settings, the user's once its link is opened. */
  unconfirmed_email: string | null
}

/** A security key of a user (WebAuthn), docs/security.md, "Two-factor sign-in". */
export interface WebauthnCredentialRow {
  id: string
  user_id: string
  /** The credential id, base64url. */
  credential_id: string
  public_key: Buffer
  sign_count: string
  nickname: string
  transports: string[]
  created_at: Date
  last_used_at: Date | null
}

/** A sign-in through the OAuth pages: where from (the new sign-in mail). */
export interface UserSignInRow {
  id: string
  user_id: string
  ip: string
  user_agent: string
  created_at: Date
  /** The invite the user signed up with (domain/invites.ts). */
  invite_id?: string | null
}

/** An invite link, /invite/:code (Mastodon's Invite; domain/invites.ts). */
export interface InviteRow {
  id: string
  user_id: string
  code: string
  /** Null: any number of uses. */
  max_uses: number | null
  uses: number
  /** Null: never expires. */
  expires_at: Date | null
  comment: string | null
  created_at: Date
}

/** An archive of one's data, a zip built by the accounts worker (Mastodon's Backup; domain/archives.ts). */
export interface ArchiveRow {
  id: string
  user_id: string
  state: 'pending' | 'done' | 'failed'
  /** The zip's name in MediaFiles once built. */
  file: string | null
  size: string | null
  created_at: Date
  finished_at: Date | null
}

export type ImportType = 'following' | 'blocking' | 'muting' | 'domain_blocking' | 'bookmarks' | 'lists'

/** One CSV import (Mastodon's BulkImport) and its rows, processed by the accounts worker (domain/imports.ts). */
export interface ImportRow {
  id: string
  account_id: string
  type: ImportType
  overwrite: boolean
  original_filename: string | null
  state: 'queued' | 'processing' | 'finished'
  rows: Record<string, unknown>[]
  total_items: number
  processed_items: number
  imported_items: number
  failures: { row: number; value: string; error: string }[]
  created_at: Date
  finished_at: Date | null
}

/** A one-time token of a link sent by mail (confirmation, password reset), kept as its SHA-256 digest. */
export interface UserTokenRow {
  id: string
  user_id: string
  purpose: 'confirmation' | 'password_reset'
  digest: string
  /** The address a confirmation token confirms. */
  email: string | null
  expires_at: Date
  used_at: Date | null
  created_at: Date
}

export interface AdminAccountRow extends AccountRow {
  user_id: string
  email: string
  locale: string
  role: string
  sign_up_reason: string | null
  confirmed_at: Date | null
  approved: boolean
  disabled: boolean
  created_by_application_id: string | null
  /** The user's role (row_to_json of `user_roles`). */
  role_row?: RoleRow | null
}

/** A role (users/roles.ts; migration 20261130040001_user_roles); `permissions` is a bigint, read as text. */
export interface RoleRow {
  id: string
  key: string
  name: string
  color: string
  position: number
  permissions: string
  highlighted: boolean
  created_at: Date
  updated_at: Date
}

export interface ApplicationRow {
  id: string
  name: string
  website: string | null
  redirect_uri: string
  scopes: string
  client_id: string
  client_secret: string
}

export interface AccessTokenRow {
  id: string
  application_id: string
  user_id: string | null
  scopes: string
  created_at: Date
  revoked_at: Date | null
  /** The last request made with it, moved at most once an hour (the sessions page). */
  last_used_at: Date | null
}

export interface StatusRow {
  id: string
  account_id: string
  application_id?: string | null
  text: string
  spoiler_text: string
  sensitive: boolean
  visibility: 'public' | 'unlisted' | 'private' | 'direct'
  language: string | null
  in_reply_to_id: string | null
  in_reply_to_account_id: string | null
  reblog_of_id: string | null
  /** The thread; null on reblogs. */
  conversation_id: string | null
  edited_at: Date | null
  /** The attachments in the author's order once edited; null: every attached one, in id order. */
  ordered_media_attachment_ids: string[] | null
  /** The ActivityPub id and page of a status from another server; null for local ones (docs/federation.md). */
  uri?: string | null
  url?: string | null
  /** Who may quote it and be accepted at once, and who after review (Mastodon's quote policy, as its keys). */
  quote_automatic?: string[]
  quote_manual?: string[]
  created_at: Date
}

/** A quote of a status by another (docs/statuses.md, "Quotes"). */
export interface QuoteRow {
  id: string
  status_id: string
  account_id: string
  quoted_status_id: string | null
  quoted_account_id: string | null
  state: 'pending' | 'accepted' | 'rejected' | 'revoked'
  /** Came as `quoteUri`, `_misskey_quote` or `quoteUrl` without FEP-044f's `quote`. */
  legacy: boolean
  /** The quoted post's ActivityPub id, kept while it is not fetched. */
  quoted_uri: string | null
  /** The QuoteRequest's id. */
  activity_uri: string | null
  /** The QuoteAuthorization (stamp) of a quote of a remote post. */
  approval_uri: string | null
  created_at: Date
  updated_at: Date
}

export interface StatusEditRow {
  id: string
  status_id: string
  account_id: string | null
  text: string
  spoiler_text: string
  sensitive: boolean
  ordered_media_attachment_ids: string[] | null
  media_descriptions: (string | null)[] | null
  poll_options: string[] | null
  created_at: Date
}

export interface MediaAttachmentRow {
  id: string
  account_id: string
  status_id: string | null
  /** The scheduled status holding it until publication. */
  scheduled_status_id?: string | null
  file: string
  content_type: string
  description: string | null
  /** The `small` preview saved next to the original (docs/mastodon-compatibility.md, "Statuses and media"); null on older rows. */
  preview_file?: string | null
  meta?: Record<string, unknown> | null
  blurhash?: string | null
  /** The URL of an attachment of a remote status; `file` is empty until the worker copies it (docs/federation.md). */
  remote_url?: string | null
  /**
   * Mastodon's `processing` (docs/media.md, "Video, audio and GIFs"): video, audio and animated GIFs are `queued`
   * until the worker transcodes them; null on images and older rows, which are complete.
   */
  processing?: 'queued' | 'in_progress' | 'complete' | 'failed' | null
  /** The entity's `type` once known (a GIF is `gifv`); null: from the content type. */
  type?: 'image' | 'gifv' | 'video' | 'audio' | 'unknown' | null
  /** A custom preview (the `thumbnail` parameter, Mastodon's `thumbnail`), shown instead of `preview_file`. */
  thumbnail_file?: string | null
  /** A remote attachment's own preview (the Document's `icon`). */
  preview_remote_url?: string | null
  created_at: Date
}

export interface PollRow {
  id: string
  account_id: string
  status_id: string
  options: string[]
  multiple: boolean
  hide_totals: boolean
  /** Null only for a remote poll whose server gave it no end. */
  expires_at: Date | null
  /** When the `poll` notifications of its end were made (null: not yet, or the clock restarted since). */
  expiry_notified_at: Date | null
  cached_tallies: string[]
  votes_count: string
  voters_count: string
  created_at: Date
  updated_at: Date
}

export interface TagRow {
  id: string
  /** Normalised (normalizeTag). */
  name: string
  display_name: string
  usable: boolean | null
  listable: boolean | null
  trendable: boolean | null
  last_status_at: Date | null
  created_at: Date
  updated_at: Date
}

export interface FeaturedTagRow {
  id: string
  account_id: string
  tag_id: string
  name: string
  display_name: string
  statuses_count: string
  last_status_at: Date | null
}

export interface NotificationRow {
  id: string
  account_id: string
  from_account_id: string
  type: string
  status_id: string | null
  /** The row the notification is about (a report for `admin.report`). */
  activity_id?: string | null
  /** Its group (docs/discovery.md, "Grouped notifications"); null for types never grouped. */
  group_key?: string | null
  created_at: Date
}

/** Mastodon's AccountConversation: an account's view of a direct-message thread with one set of participants. */
export interface AccountConversationRow {
  id: string
  account_id: string
  conversation_id: string
  participant_account_ids: string[]
  status_ids: string[]
  last_status_id: string | null
  unread: boolean
}

export interface FollowRequestRow {
  id: string
  account_id: string
  target_account_id: string
  show_reblogs: boolean
  notify: boolean
  languages: string[] | null
  uri: string | null
}

/** Mastodon's List entity (REST::ListSerializer). */
export interface ListRow {
  id: string
  account_id: string
  title: string
  replies_policy: 'list' | 'followed' | 'none'
  exclusive: boolean
  created_at: Date
  updated_at: Date
}

export interface FilterRow {
  id: string
  account_id: string
  title: string
  context: string[]
  filter_action: FilterAction
  expires_at: Date | null
  created_at: Date
  updated_at: Date
}

export interface FilterKeywordRow {
  id: string
  custom_filter_id: string
  keyword: string
  whole_word: boolean
}

export interface FilterStatusRow {
  id: string
  custom_filter_id: string
  status_id: string
}

export interface MarkerRow {
  id: string
  user_id: string
  timeline: MarkerTimeline
  last_read_id: string
  lock_version: number
  updated_at: Date
}

/**
 * A scheduled status's parameters, stored as given and shown as Mastodon's ScheduledStatus `params` (the options
 * of its PostStatusService): what the client left out is null and is decided at publication (the author's
 * default visibility, say), as in Mastodon.
 */
export interface ScheduledParams {
  text: string | null
  spoiler_text: string | null
  sensitive: boolean | null
  visibility: StatusRow['visibility'] | null
  language: string | null
  in_reply_to_id: string | null
  media_ids: string[] | null
  poll: { options: string[]; expires_in: number | null; multiple: boolean; hide_totals: boolean } | null
  application_id: string | null
  scheduled_at: null
  idempotency: null
  with_rate_limit: false
}

export interface ScheduledStatusRow {
  id: string
  account_id: string
  scheduled_at: Date
  params: ScheduledParams
  created_at: Date
}

export interface ReportRow {
  id: string
  account_id: string
  target_account_id: string
  status_ids: string[]
  rule_ids: string[] | null
  comment: string
  category: 'spam' | 'legal' | 'violation' | 'other'
  forwarded: boolean
  assigned_account_id: string | null
  action_taken_at: Date | null
  /** The moderator who resolved it. */
  action_taken_by_account_id: string | null
  created_at: Date
  updated_at: Date
}

export interface RuleRow {
  id: string
  priority: number
  text: string
  hint: string
  deleted_at: Date | null
}

export interface AnnouncementRow {
  id: string
  text: string
  published: boolean
  all_day: boolean
  starts_at: Date | null
  ends_at: Date | null
  published_at: Date | null
  created_at: Date
  updated_at: Date
}

export interface DomainBlockRow {
  id: string
  domain: string
  severity: DomainBlockSeverity
  reject_media: boolean
  reject_reports: boolean
  private_comment: string | null
  public_comment: string | null
  obfuscate: boolean
  created_at: Date
  updated_at: Date
}

export interface IpBlockRow {
  id: string
  /** Postgres `cidr`, always with its prefix: `10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7/32`. */
  ip: string
  severity: IpSeverity
  comment: string
  expires_at: Date | null
  created_at: Date
  updated_at: Date
}

export interface OutboxRow {
  id: string
  payload: OutboxEvent
}

/**
 * The tables that have a row type here, by name. A plain map, not knex's `declare module 'knex/types/tables'`
 * augmentation: that types every `db('statuses')` of the program, tests' fixtures included, and broke 177 places
 * (reads with `.first()` turn possibly undefined, partial inserts and joined columns no longer fit the row). Name a
 * table's row with `RowOf<'statuses'>`, or type one query with `db<RowOf<'statuses'>>('statuses')`.
 */
export interface Tables {
  quotes: QuoteRow
  accounts: AccountRow
  users: UserRow
  user_tokens: UserTokenRow
  invites: InviteRow
  archives: ArchiveRow
  imports: ImportRow
  oauth_applications: ApplicationRow
  oauth_access_tokens: AccessTokenRow
  webauthn_credentials: WebauthnCredentialRow
  user_sign_ins: UserSignInRow
  statuses: StatusRow
  status_edits: StatusEditRow
  media_attachments: MediaAttachmentRow
  polls: PollRow
  tags: TagRow
  featured_tags: FeaturedTagRow
  notifications: NotificationRow
  account_conversations: AccountConversationRow
  follow_requests: FollowRequestRow
  lists: ListRow
  custom_filters: FilterRow
  custom_filter_keywords: FilterKeywordRow
  custom_filter_statuses: FilterStatusRow
  markers: MarkerRow
  scheduled_statuses: ScheduledStatusRow
  reports: ReportRow
  rules: RuleRow
  announcements: AnnouncementRow
  domain_blocks: DomainBlockRow
  ip_blocks: IpBlockRow
  outbox: OutboxRow
  custom_emojis: CustomEmojiRow
}

/** The row of a table: `RowOf<'users'>` is `UserRow`. */
export type RowOf<T extends keyof Tables> = Tables[T]

/** A moderation decision told to the account (Mastodon's AccountWarning; domain/account_warnings.ts). */
export interface AccountWarningRow {
  id: string
  account_id: string | null
  target_account_id: string
  action: string
  text: string
  created_at: Date
}
