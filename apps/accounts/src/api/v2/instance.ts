import type { Request, Response } from 'express'
import { localDomainOf } from '../../config'
import type { AccountsContext } from '../../context'
import { renderAccount, urlsOf } from '../../entities/account'
import { POLL_LIMITS } from '../../domain/polls'
import { MAX_VIDEO_FRAME_RATE, MAX_VIDEO_MATRIX_LIMIT, VIDEO_LIMIT } from '../../media/av'
import { MAX_CHARS, MAX_MEDIA } from '../../domain/statuses'
import { activeRules, renderRule } from '../../domain/rules'
import { readSettings } from '../../domain/server_settings'
import { visibleLocalAccounts } from '../../queries/accounts'
import { MAX_MEDIA_DESCRIPTION } from '@roost/routes'
import { MAX_PINS } from '../v1/statuses/actions'
import { DISPLAY_NAME_MAX, FIELD_TEXT_MAX, MAX_FIELDS, NOTE_MAX } from '../v1/accounts/update_credentials'

/** The Mastodon release whose API Roost follows, as clients parse it for feature detection. */
export const VERSION = '4.5.0 (compatible; Roost 0.1.0)'
/** `api_versions.mastodon` of Mastodon 4.5 (clients compare it to decide which newer calls exist). */
const MASTODON_API_VERSION = 7
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp']
/** Mastodon's VIDEO_MIME_TYPES and AUDIO_MIME_TYPES: what the worker transcodes (docs/media.md, "Video, audio and GIFs"). */
const AV_TYPES = [
  'video/webm',
  'video/mp4',
  'video/quicktime',
  'video/ogg',
  'audio/wave',
  'audio/wav',
  'audio/x-wav',
  'audio/x-pn-wave',
  'audio/vnd.wave',
  'audio/ogg',
  'audio/vorbis',
  'audio/mpeg',
  'audio/mp3',
  'audio/webm',
  'audio/flac',
  'audio/aac',
  'audio/m4a',
  'audio/x-m4a',
  'audio/mp4',
  'audio/3gpp',
  'video/x-ms-asf',
]
const IMAGE_SIZE_LIMIT = 16 * 1024 * 1024

/** What both instance documents share: limits, registration state, contact and counts. */
export async function instanceFacts(ctx: AccountsContext) {
  // The admins' settings, read now (docs/moderation.md, "Server settings"): a change shows at once.
  const { settings } = await readSettings(ctx.db, ctx.config)
  const { config } = ctx
  const urls = urlsOf(config)
  const domain = localDomainOf(config)
  const [{ count: users }] = await visibleLocalAccounts(ctx.db)
    .clearSelect()
    .whereNull('accounts.suspended_at')
    .count<{ count: string }[]>('* as count')
  const [{ sum: statuses }] = await ctx.db('accounts').sum<{ sum: string | null }[]>('statuses_count as sum')
  // The contact account named in the settings, else the first owner or admin.
  const named = settings.site_contact_username
  const contact = await visibleLocalAccounts(ctx.db)
    .whereNull('accounts.suspended_at')
    .modify((q) =>
      named
        ? q.whereRaw('lower(accounts.username) = lower(?)', [named])
        : q.whereIn('users.role', ['owner', 'admin']).orderByRaw("users.role = 'owner' DESC"),
    )
    .orderBy('accounts.id')
    .first()
  const rules = (await activeRules(ctx.db)).map(renderRule)
  return {
    rules,
    urls,
    domain,
    userCount: Number(users),
    statusCount: Number(statuses ?? 0),
    contactAccount: contact ? renderAccount(contact, urls) : null,
    streaming: urls.base.replace(/^http/, 'ws'),
    settings,
    registrationsEnabled: settings.registrations_mode !== 'none',
    approvalRequired: settings.registrations_mode === 'approved',
    accounts: {
      max_featured_tags: 10,
      max_pinned_statuses: MAX_PINS,
      max_display_name_length: DISPLAY_NAME_MAX,
      max_note_length: NOTE_MAX,
      max_profile_fields: MAX_FIELDS,
      profile_field_name_limit: FIELD_TEXT_MAX,
      profile_field_value_limit: FIELD_TEXT_MAX,
    },
    statuses: {
      max_characters: MAX_CHARS,
      max_media_attachments: MAX_MEDIA,
      characters_reserved_per_url: 23,
    },
    mediaAttachments: {
      supported_mime_types: [...IMAGE_TYPES, ...AV_TYPES],
      description_limit: MAX_MEDIA_DESCRIPTION,
      image_size_limit: IMAGE_SIZE_LIMIT,
      image_matrix_limit: 33177600,
      video_size_limit: VIDEO_LIMIT,
      video_frame_rate_limit: MAX_VIDEO_FRAME_RATE,
      video_matrix_limit: MAX_VIDEO_MATRIX_LIMIT,
    },
    polls: {
      max_options: POLL_LIMITS.maxOptions,
      max_characters_per_option: POLL_LIMITS.maxOptionChars,
      min_expiration: ctx.config.POLL_MIN_EXPIRATION_SECONDS,
      max_expiration: POLL_LIMITS.maxExpiration,
    },
  }
}

/** GET /api/v2/instance (docs/mastodon-compatibility.md, "What is served"): public, cached for 5 minutes like Mastodon's. */
export async function instanceV2(ctx: AccountsContext, _req: Request, res: Response) {
  const f = await instanceFacts(ctx)
  const { config } = ctx
  res.set('Cache-Control', 'public, max-age=300')
  res.json({
    domain: f.domain,
    title: f.settings.site_title,
    version: VERSION,
    source_url: 'https://github.com/roost-social/roost',
    description: f.settings.site_short_description,
    usage: { users: { active_month: f.userCount } },
    thumbnail: { url: `${f.urls.base}/packs/media/images/preview.png` },
    icon: [],
    languages: f.settings.languages,
    api_versions: { mastodon: MASTODON_API_VERSION },
    configuration: {
      urls: { streaming: f.streaming, status: null, about: `${f.urls.base}/about`, terms_of_service: null },
      vapid: { public_key: config.VAPID_PUBLIC_KEY },
      accounts: f.accounts,
      statuses: f.statuses,
      media_attachments: f.mediaAttachments,
      polls: f.polls,
      translation: { enabled: false },
      timelines_access: {
        live_feeds: { local: 'public', remote: 'public' },
        hashtag_feeds: { local: 'public', remote: 'public' },
        trending_link_feeds: { local: 'public', remote: 'public' },
      },
      limited_federation: f.settings.limited_federation_mode,
    },
    registrations: {
      enabled: f.registrationsEnabled,
      approval_required: f.approvalRequired,
      reason_required: f.approvalRequired && f.settings.require_invite_text,
      message:
        f.settings.registrations_mode === 'none' ? f.settings.closed_registrations_message || null : null,
      min_age: config.REGISTRATIONS_MIN_AGE || null,
      url: null,
    },
    contact: { email: f.settings.site_contact_email, account: f.contactAccount },
    rules: f.rules,
  })
}
