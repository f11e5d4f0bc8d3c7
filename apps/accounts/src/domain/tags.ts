import type { Knex } from '@roost/db'
import * as outbox from '../outbox/outbox'
import { displayName, extractHashtags, normalizeTag } from '../text/hashtags'
import type { TagRow } from '../db/rows'

/**
 * Hashtags as Mastodon stores them (docs/hashtags.md): one `tags` row per normalised name (text/hashtags.ts), which
 * keeps the spelling it was first written in as `display_name`.
 */

/** The tags named (any spelling), one per normalised name; unknown ones are left out. */
export async function findTags(db: Knex, names: string[]): Promise<TagRow[]> {
  const normalized = [...new Set(names.map(normalizeTag).filter(Boolean))]
  return normalized.length ? db('tags').whereIn('name', normalized) : []
}

/**
 * Mastodon's Tag.find_or_create_by_names: the tags for these names, created as needed (a concurrent creation of
 * the same tag is taken as found), one per normalised name, in the order first written.
 */
export async function findOrCreateTags(trx: Knex, names: string[]): Promise<TagRow[]> {
  const wanted = new Map<string, string>()
  for (const name of names) {
    const normalized = normalizeTag(name)
    if (normalized && !wanted.has(normalized)) wanted.set(normalized, displayName(name))
  }
  if (!wanted.size) return []
  await trx('tags')
    .insert([...wanted].map(([name, display]) => ({ name, display_name: display })))
    .onConflict('name')
    .ignore()
  const rows: TagRow[] = await trx('tags').whereIn('name', [...wanted.keys()])
  return [...wanted.keys()].map((name) => rows.find((r) => r.name === name)!)
}

/**
 * Records a status's hashtags, replacing those of its previous text (an edit; `fresh`: a status created in this
 * transaction has none).
 */
export async function storeTags(trx: Knex, statusId: string, text: string, fresh = false) {
  if (!fresh) await trx('status_tags').where({ status_id: statusId }).delete()
  const tags = await findOrCreateTags(trx, extractHashtags(text))
  if (tags.length) {
    await trx('status_tags').insert(tags.map((t) => ({ status_id: statusId, tag_id: t.id })))
    // At most every 12 hours, as Mastodon: a popular tag's row is not a lock every post waits for.
    await trx('tags')
      .whereIn(
        'id',
        tags.map((t) => t.id),
      )
      .where((q) =>
        q.whereNull('last_status_at').orWhere('last_status_at', '<', trx.raw("now() - interval '12 hours'")),
      )
      .update({ last_status_at: trx.fn.now() })
  }
  return tags
}

/** The names (normalised) of a status's tags. */
export const tagNamesOf = (db: Knex, statusId: string): Promise<string[]> =>
  db('status_tags')
    .join('tags', 'tags.id', 'status_tags.tag_id')
    .where({ status_id: statusId })
    .pluck('tags.name')

/** Mastodon's TagsController#follow: creates the tag if nobody used it yet; following twice is one follow. */
export async function followTag(trx: Knex, accountId: string, name: string): Promise<TagRow> {
  const [tag] = await findOrCreateTags(trx, [name])
  await trx('tag_follows')
    .insert({ account_id: accountId, tag_id: tag!.id })
    .onConflict(['account_id', 'tag_id'])
    .ignore()
  return tag!
}

/** Unfollows (nothing to do is fine); the worker takes the tag's statuses out of the home feed. */
export async function unfollowTag(trx: Knex, accountId: string, tagId: string) {
  const [removed] = await trx('tag_follows')
    .where({ account_id: accountId, tag_id: tagId })
    .delete()
    .returning('id')
  if (removed)
    await outbox.add(trx, { event: 'tag_follow.removed', tagFollowId: removed.id, tagId, accountId })
}
