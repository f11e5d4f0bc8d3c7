import type { Knex } from '@roost/db'
import { Invalid, NotFound } from '@roost/errors'
import * as outbox from '../outbox/outbox'
import { parseId } from './records'
import type { AnnouncementRow } from '../db/rows'

/** At most this many different reactions on one announcement (Mastodon's ReactionValidator). */
export const MAX_REACTION_KINDS = 8

/** One emoji as Unicode names them (RGI emoji, skin tones and ZWJ sequences included); Roost has no custom emoji. */
const EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v')

/**
 * Published announcements that have not ended, in Mastodon's chronological order (by start, else by publication).
 * Mastodon unpublishes an ended announcement with a scheduled job; Roost leaves it out when reading.
 */
export const currentAnnouncements = (db: Knex) =>
  db('announcements')
    .where({ published: true })
    .where((q) => q.whereNull('ends_at').orWhere('ends_at', '>', db.fn.now()))
    .orderByRaw('coalesce(starts_at, published_at, created_at), id')

/** A published announcement by path id, else 404 "Record not found". */
export async function findAnnouncement(db: Knex, id: unknown): Promise<AnnouncementRow> {
  const announcementId = parseId(id)
  const row: AnnouncementRow | undefined = announcementId
    ? await currentAnnouncements(db).where({ id: announcementId }).first()
    : undefined
  if (!row) throw new NotFound()
  return row
}

/** Creates an announcement (the admin CLI); published at once unless `draft`. */
export async function createAnnouncement(
  trx: Knex,
  a: { text: string; startsAt?: Date; endsAt?: Date; allDay?: boolean; draft?: boolean },
): Promise<AnnouncementRow> {
  if (!a.text.trim()) throw new Invalid("Validation failed: Text can't be blank")
  if (a.startsAt && a.endsAt && a.endsAt < a.startsAt)
    throw new Invalid('Validation failed: Ends at must be after the start')
  const [row] = await trx('announcements')
    .insert({
      text: a.text,
      starts_at: a.startsAt ?? null,
      ends_at: a.endsAt ?? null,
      all_day: a.allDay ?? false,
    })
    .returning('*')
  return a.draft ? row : publishAnnouncement(trx, row.id)
}

/** Publishes an announcement; signed-in users' streams get it (`announcement`). */
export async function publishAnnouncement(trx: Knex, id: string): Promise<AnnouncementRow> {
  const [row] = await trx('announcements')
    .where({ id })
    .update({ published: true, published_at: trx.fn.now(), updated_at: trx.fn.now() })
    .returning('*')
  if (!row) throw new NotFound()
  await outbox.add(trx, { event: 'announcement.published', announcementId: row.id })
  return row
}

/** Takes an announcement back (`delete` removes it for good); streams get `announcement.delete`. */
export async function withdrawAnnouncement(trx: Knex, id: string, options: { delete?: boolean } = {}) {
  const q = trx('announcements').where({ id })
  const n = options.delete
    ? await q.delete()
    : await q.update({ published: false, published_at: null, updated_at: trx.fn.now() })
  if (!n) throw new NotFound()
  await outbox.add(trx, { event: 'announcement.deleted', announcementId: id })
}

/** Marks an announcement read for an account (idempotent). */
export async function dismissAnnouncement(trx: Knex, accountId: string, announcementId: string) {
  await trx('announcement_mutes')
    .insert({ account_id: accountId, announcement_id: announcementId })
    .onConflict(['account_id', 'announcement_id'])
    .ignore()
}

/**
 * Adds an account's reaction `name` (one Unicode emoji) to an announcement, idempotently; at most
 * MAX_REACTION_KINDS different names per announcement. Streams get `announcement.reaction` with the new count.
 */
export async function addReaction(trx: Knex, accountId: string, announcementId: string, name: string) {
  if (!EMOJI.test(name)) throw new Invalid('Validation failed: Name is not a recognized emoji')
  // The announcement row is locked so that two reactions cannot both pass the limit.
  await trx('announcements').where({ id: announcementId }).forUpdate().first('id')
  const kinds: string[] = await trx('announcement_reactions')
    .where({ announcement_id: announcementId })
    .whereNot({ name })
    .distinct()
    .pluck('name')
  if (kinds.length >= MAX_REACTION_KINDS)
    throw new Invalid('Validation failed: Limit of different reactions reached')
  const inserted = await trx('announcement_reactions')
    .insert({ account_id: accountId, announcement_id: announcementId, name })
    .onConflict(['account_id', 'announcement_id', 'name'])
    .ignore()
    .returning('id')
  if (inserted.length)
    await outbox.add(trx, { event: 'announcement.reaction', announcementId, accountId, name })
}

/** Removes an account's reaction; 404 "Record not found" when it has none of that name. */
export async function removeReaction(trx: Knex, accountId: string, announcementId: string, name: string) {
  const n = await trx('announcement_reactions')
    .where({ account_id: accountId, announcement_id: announcementId, name })
    .delete()
  if (!n) throw new NotFound()
  await outbox.add(trx, { event: 'announcement.reaction', announcementId, accountId, name })
}
