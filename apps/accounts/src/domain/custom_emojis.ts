import type { Knex } from '@roost/db'
import { Invalid, NotFound } from '@roost/errors'
import type { CustomEmojiRow } from '../db/rows'
import type { MediaFiles } from '../media/files'
import { storeEmojiFiles } from '../media/images'
import * as outbox from '../outbox/outbox'
import { accountEmoji, emojisIn } from '../queries/custom_emojis'
import { profileTexts, SHORTCODE } from '../text/emojis'
import { parseId } from './records'

/**
 * Custom emojis (docs/emoji.md): local ones that admins add through the admin API or the CLI, and other servers'
 * ones stored from the `Emoji` tags of their statuses and actors, as Mastodon's CustomEmoji. Statuses find theirs
 * when rendered; an account keeps the ones its profile uses (`accounts.emojis`), refreshed here whenever the
 * profile or one of those emojis changes.
 */

/** Longer shortcodes are refused: Mastodon sets no bound, Roost one no picker needs more than (docs/emoji.md). */
export const MAX_SHORTCODE = 128

const invalid = (what: string) => new Invalid(`Validation failed: ${what}`)

/** Mastodon's shortcode validations (format, at least two characters), plus MAX_SHORTCODE. */
export function checkShortcode(shortcode: string) {
  if (shortcode.length > MAX_SHORTCODE)
    throw invalid(`Shortcode is too long (maximum is ${MAX_SHORTCODE} characters)`)
  if (!SHORTCODE.test(shortcode)) throw invalid('Shortcode is invalid')
}

const normalCategory = (category: string | null | undefined) => {
  const c = category?.trim()
  if (c && c.length > 64) throw invalid('Category is too long (maximum is 64 characters)')
  return c || null
}

export interface NewEmoji {
  shortcode: string
  image: Buffer
  category?: string | null
  visibleInPicker?: boolean
}

/**
 * Adds a local emoji: its image re-encoded (smaller than 256 KB, fitted into 400×400, PNG, GIF or WebP) with a
 * PNG of its first frame. A shortcode already taken locally, or a bad one, is a 422. The files are stored before
 * the row; a row that cannot be written takes them away again.
 */
export async function createLocalEmoji(db: Knex, files: MediaFiles, e: NewEmoji): Promise<CustomEmojiRow> {
  checkShortcode(e.shortcode)
  const category = normalCategory(e.category)
  if (await db('custom_emojis').where({ shortcode: e.shortcode }).whereNull('domain').first('id'))
    throw invalid('Shortcode has already been taken')
  const stored = await storeEmojiFiles(files, e.image)
  try {
    return await db.transaction(async (trx) => {
      const [row]: CustomEmojiRow[] = await trx('custom_emojis')
        .insert({
          shortcode: e.shortcode,
          file: stored.file,
          static_file: stored.staticFile,
          content_type: stored.type,
          category,
          visible_in_picker: e.visibleInPicker ?? true,
        })
        .returning('*')
      await refreshAccountsUsing(trx, null, row!.shortcode)
      return row!
    })
  } catch (err) {
    await removeFiles(files, stored.file, stored.staticFile)
    if ((err as { code?: string }).code === '23505') throw invalid('Shortcode has already been taken')
    throw err
  }
}

async function removeFiles(files: MediaFiles, ...names: (string | null | undefined)[]) {
  for (const name of new Set(names)) if (name) await files.remove(name)
}

/** The emoji with this id, local or remote; 404 otherwise. */
export async function findEmoji(db: Knex, id: unknown): Promise<CustomEmojiRow> {
  const emojiId = parseId(id)
  const row: CustomEmojiRow | undefined = emojiId
    ? await db('custom_emojis').where({ id: emojiId }).first()
    : undefined
  if (!row) throw new NotFound()
  return row
}

export interface EmojiChanges {
  category?: string | null
  visibleInPicker?: boolean
  disabled?: boolean
}

/**
 * Mastodon's admin actions on one emoji (`update` of its category, `list`/`unlist`, `enable`/`disable`): a
 * disabled emoji is in no entity's `emojis` and not in `/api/v1/custom_emojis`. Remote emojis can be disabled
 * too (Mastodon's way to hide another server's emoji).
 */
export async function updateEmoji(db: Knex, id: unknown, changes: EmojiChanges): Promise<CustomEmojiRow> {
  const row = await findEmoji(db, id)
  const update: Partial<CustomEmojiRow> = {}
  if (changes.category !== undefined) update.category = normalCategory(changes.category)
  if (changes.visibleInPicker !== undefined) update.visible_in_picker = changes.visibleInPicker
  if (changes.disabled !== undefined) update.disabled = changes.disabled
  if (!Object.keys(update).length) return row
  return db.transaction(async (trx) => {
    const [updated]: CustomEmojiRow[] = await trx('custom_emojis')
      .where({ id: row.id })
      .update({ ...update, updated_at: trx.fn.now() })
      .returning('*')
    await refreshAccountsUsing(trx, row.domain, row.shortcode)
    return updated!
  })
}

/** Deletes an emoji and its files; the profiles that used it show its `:code:` as text again. */
export async function deleteEmoji(db: Knex, files: MediaFiles, id: unknown): Promise<CustomEmojiRow> {
  const row = await findEmoji(db, id)
  await db.transaction(async (trx) => {
    await trx('custom_emojis').where({ id: row.id }).delete()
    await refreshAccountsUsing(trx, row.domain, row.shortcode)
  })
  await removeFiles(files, row.file, row.static_file)
  return row
}

/**
 * Mastodon's `CustomEmoji#copy!`: another server's emoji becomes a local one of the same shortcode (a local one
 * of that shortcode gets the copied image), its files copied so that deleting either leaves the other whole.
 */
export async function copyEmoji(db: Knex, files: MediaFiles, id: unknown): Promise<CustomEmojiRow> {
  const remote = await findEmoji(db, id)
  if (!remote.domain) throw invalid('Emoji is already local')
  const data = remote.file ? await files.read(remote.file) : undefined
  if (!data) throw invalid('Image has not been copied from its server yet')
  const existing: CustomEmojiRow | undefined = await db('custom_emojis')
    .where({ shortcode: remote.shortcode })
    .whereNull('domain')
    .first()
  if (!existing) return createLocalEmoji(db, files, { shortcode: remote.shortcode, image: data })
  const stored = await storeEmojiFiles(files, data)
  const [row]: CustomEmojiRow[] = await db.transaction(async (trx) => {
    const rows = await trx('custom_emojis')
      .where({ id: existing.id })
      .update({
        file: stored.file,
        static_file: stored.staticFile,
        content_type: stored.type,
        updated_at: trx.fn.now(),
      })
      .returning('*')
    await refreshAccountsUsing(trx, null, existing.shortcode)
    return rows
  })
  await removeFiles(files, existing.file, existing.static_file)
  return row!
}

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
const likeEscaped = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * Computes again the emojis of the accounts of `domain` (null: local ones) whose profile names `:shortcode:`, after
 * that emoji changed. The candidates are found by their text (a scan of that server's accounts: emojis change
 * seldom), then each is checked with the shortcode scanner.
 */
export async function refreshAccountsUsing(db: Knex, domain: string | null, shortcode: string) {
  const pattern = `%:${likeEscaped(shortcode)}:%`
  const accounts: {
    id: string
    display_name: string
    note: string
    fields: { name: string; value: string }[]
  }[] = await db('accounts')
    .andWhereRaw("coalesce(domain, '') = ?", [domain ?? ''])
    .andWhere((q) =>
      q
        .whereRaw('display_name LIKE ?', [pattern])
        .orWhereRaw('note LIKE ?', [pattern])
        .orWhereRaw('fields::text LIKE ?', [pattern]),
    )
    .select('id', 'display_name', 'note', 'fields')
  for (const a of accounts) {
    const changed = await refreshAccountEmojis(db, a.id, domain, a)
    // A local profile's emoji changed (a new image, disabled, deleted, added): its actor, with its Emoji tags, goes
    // again to its followers' servers as an Update (docs/emoji.md).
    if (changed && domain === null) await outbox.add(db, { event: 'account.updated', accountId: a.id })
  }
}

/**
 * Stores on an account the emojis its profile uses (Mastodon's `Account#emojis`), as they are now; whether they
 * changed.
 */
export async function refreshAccountEmojis(
  db: Knex,
  accountId: string,
  domain: string | null | undefined,
  profile: { display_name: string; note: string; fields: { name: string; value: string }[] },
) {
  const emojis = (await emojisIn(db, domain, profileTexts(profile))).map(accountEmoji)
  const json = JSON.stringify(emojis)
  const changed = await db('accounts')
    .where({ id: accountId })
    .whereRaw('emojis IS DISTINCT FROM ?::jsonb', [json])
    // The profile as others see it changed: a new version of the actor (its Update's id and key, docs/emoji.md).
    .update({ emojis: json, updated_at: db.fn.now() })
  return changed > 0
}

/** One `Emoji` tag of another server's object, as its fields are read. */
export interface RemoteEmojiTag {
  shortcode: string
  url: string
  uri: string | null
  updated: Date | null
}

/**
 * Stores the `Emoji` tags of another server's status or actor, as Mastodon's `process_emoji`: a new (shortcode,
 * domain) is a new row, a known one takes the new image URL when the URL changed or its `updated` date is later
 * than what we have. Each row whose image is still to copy is announced (`custom_emojis.linked`, in the same
 * transaction), for the worker to copy it (activities/remote-media.ts).
 */
export async function storeRemoteEmojis(trx: Knex, domain: string, tags: RemoteEmojiTag[]) {
  const toFetch: string[] = []
  for (const tag of tags) {
    const known: CustomEmojiRow | undefined = await trx('custom_emojis')
      .where({ shortcode: tag.shortcode, domain })
      .first()
    if (
      known &&
      known.image_remote_url === tag.url &&
      !(tag.updated && (!known.remote_updated_at || tag.updated > new Date(known.remote_updated_at)))
    )
      continue
    const columns = {
      image_remote_url: tag.url,
      uri: tag.uri,
      remote_updated_at: tag.updated,
      needs_fetch: true,
      updated_at: trx.fn.now(),
    }
    const [row]: { id: string }[] = known
      ? await trx('custom_emojis').where({ id: known.id }).update(columns).returning('id')
      : // Another delivery stored it a moment ago: that one is announced already.
        (
          await trx.raw<{ rows: { id: string }[] }>(
            `INSERT INTO custom_emojis (shortcode, domain, image_remote_url, uri, remote_updated_at, needs_fetch)
             VALUES (?, ?, ?, ?, ?, true) ON CONFLICT DO NOTHING RETURNING id`,
            [tag.shortcode, domain, tag.url, tag.uri, tag.updated],
          )
        ).rows
    if (row) toFetch.push(row.id)
  }
  if (toFetch.length) await outbox.add(trx, { event: 'custom_emojis.linked', customEmojiIds: toFetch })
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
const first = (v: unknown) => (Array.isArray(v) ? v[0] : v)

/**
 * The `Emoji` tags of an object (Mastodon's shape: `{id, type: 'Emoji', name: ':code:', updated, icon: {type:
 * 'Image', mediaType, url}}`), those with a valid shortcode and an http(s) image only.
 */
export function emojiTagsOf(object: Record<string, unknown>): RemoteEmojiTag[] {
  const tags = Array.isArray(object.tag) ? object.tag : object.tag ? [object.tag] : []
  const found = new Map<string, RemoteEmojiTag>()
  for (const t of tags) {
    if (!t || typeof t !== 'object') continue
    const tag = t as Record<string, unknown>
    if (tag.type !== 'Emoji') continue
    const shortcode = str(tag.name)?.replace(/^:|:$/g, '')
    if (!shortcode || !SHORTCODE.test(shortcode) || shortcode.length > MAX_SHORTCODE) continue
    const icon = first(tag.icon)
    const rawUrl =
      typeof icon === 'string'
        ? icon
        : icon && typeof icon === 'object'
          ? str(first((icon as { url?: unknown }).url))
          : undefined
    let url: string | undefined
    try {
      const u = rawUrl ? new URL(rawUrl) : undefined
      url = u && (u.protocol === 'https:' || u.protocol === 'http:') ? u.href : undefined
    } catch {
      url = undefined
    }
    if (!url) continue
    const updated = str(tag.updated) ? new Date(str(tag.updated)!) : null
    found.set(shortcode, {
      shortcode,
      url,
      uri: str(tag.id) ?? null,
      updated: updated && !Number.isNaN(updated.getTime()) ? updated : null,
    })
  }
  return [...found.values()]
}
