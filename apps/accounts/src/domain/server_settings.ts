import type { Knex } from '@roost/db'
import type { AccountsConfig } from '../config'

/**
 * The server settings admins change through the API (docs/moderation.md, "Server settings"), with Mastodon's
 * setting names, kept in `server_settings`; a setting never changed reads as the environment's value. They are
 * read from Postgres on every use (one small query), so a change shows in /api/v2/instance and applies to
 * sign-ups at once, in every process, without a restart.
 */
export interface ServerSettings {
  site_title: string
  /** The instance's `description` (v2) and `short_description` (v1). */
  site_short_description: string
  /** GET /api/v1/instance/extended_description (plain text; paragraphs are rendered as HTML). */
  site_extended_description: string
  /** The username of the contact account (blank: the first owner or admin). */
  site_contact_username: string
  site_contact_email: string
  registrations_mode: 'open' | 'approved' | 'none'
  /** Shown when registrations are closed (`registrations.message`). */
  closed_registrations_message: string
  /** With `approved`: a sign-up must give a reason (Mastodon's require_invite_text). */
  require_invite_text: boolean
  /** ISO 639-1 codes of the server's languages (the instance's `languages`). */
  languages: string[]
  /** Federate only with servers on the allow list (docs/moderation.md, "Domain allows"). */
  limited_federation_mode: boolean
}

export const REGISTRATIONS_MODES = ['open', 'approved', 'none'] as const

type Defaults = Pick<
  AccountsConfig,
  | 'INSTANCE_TITLE'
  | 'INSTANCE_DESCRIPTION'
  | 'INSTANCE_CONTACT_EMAIL'
  | 'REGISTRATIONS_MODE'
  | 'REGISTRATIONS_MESSAGE'
  | 'REGISTRATIONS_REASON_REQUIRED'
>

export const defaultSettings = (config: Defaults): ServerSettings => ({
  site_title: config.INSTANCE_TITLE,
  site_short_description: config.INSTANCE_DESCRIPTION,
  site_extended_description: '',
  site_contact_username: '',
  site_contact_email: config.INSTANCE_CONTACT_EMAIL,
  registrations_mode: config.REGISTRATIONS_MODE,
  closed_registrations_message: config.REGISTRATIONS_MESSAGE ?? '',
  require_invite_text: config.REGISTRATIONS_REASON_REQUIRED,
  languages: ['en'],
  limited_federation_mode: false,
})

/** Every setting as it is now, and when one was last changed (null: never). */
export async function readSettings(
  db: Knex,
  config: Defaults,
): Promise<{ settings: ServerSettings; updatedAt: Date | null }> {
  const rows: { key: string; value: unknown; updated_at: Date }[] = await db('server_settings')
  const settings = defaultSettings(config) as unknown as Record<string, unknown>
  let updatedAt: Date | null = null
  for (const row of rows) {
    if (!(row.key in settings)) continue
    settings[row.key] = row.value
    if (!updatedAt || row.updated_at > updatedAt) updatedAt = row.updated_at
  }
  return { settings: settings as unknown as ServerSettings, updatedAt }
}

/** When the extended description was last changed (the endpoint's `updated_at`). */
export async function settingUpdatedAt(db: Knex, key: keyof ServerSettings): Promise<Date | null> {
  const row = await db('server_settings').where({ key }).first('updated_at')
  return row?.updated_at ?? null
}

/** Writes the given settings, in the caller's transaction. */
export async function writeSettings(trx: Knex, changes: Partial<ServerSettings>) {
  const rows = Object.entries(changes).map(([key, value]) => ({
    key,
    value: JSON.stringify(value),
    updated_at: trx.fn.now(),
  }))
  if (rows.length) await trx('server_settings').insert(rows).onConflict('key').merge()
}

/**
 * The service's configuration with the settings applied where code reads the environment's names (sign-up rules,
 * the instance documents): a handler calls this once and passes the result on.
 */
export async function configWithSettings<C extends Defaults>(db: Knex, config: C): Promise<C> {
  const { settings } = await readSettings(db, config)
  return {
    ...config,
    INSTANCE_TITLE: settings.site_title,
    INSTANCE_DESCRIPTION: settings.site_short_description,
    INSTANCE_CONTACT_EMAIL: settings.site_contact_email,
    REGISTRATIONS_MODE: settings.registrations_mode,
    REGISTRATIONS_MESSAGE: settings.closed_registrations_message || undefined,
    REGISTRATIONS_REASON_REQUIRED: settings.require_invite_text,
  }
}
