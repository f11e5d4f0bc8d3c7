import type { Knex } from '@roost/db'
import type { AccountEmoji, CustomEmojiRow } from '../db/rows'
import { shortcodesIn } from '../text/emojis'

/**
 * The custom emojis that texts of one server use (docs/emoji.md), as Mastodon's `CustomEmoji.from_text(text,
 * domain)`: those that exist for that domain (null: ours), are enabled and have their image, in the order the
 * texts first name them.
 */
export async function emojisIn(
  db: Knex,
  domain: string | null | undefined,
  texts: (string | null | undefined)[],
): Promise<CustomEmojiRow[]> {
  const codes = shortcodesIn(...texts)
  if (!codes.length) return []
  const rows: CustomEmojiRow[] = await db('custom_emojis')
    .whereIn('shortcode', codes)
    .andWhereRaw("coalesce(domain, '') = ?", [domain ?? ''])
    .where({ disabled: false })
    .whereNot({ file: '' })
  return codes.flatMap((code) => rows.find((r) => r.shortcode === code) ?? [])
}

/**
 * The emojis of many texts at once, each text with its server: one statement for a page of statuses. The answer
 * has, per key, the emojis its texts use, as `emojisIn` would.
 */
export async function emojisOfMany(
  db: Knex,
  items: { key: string; domain: string | null | undefined; texts: (string | null | undefined)[] }[],
): Promise<Map<string, CustomEmojiRow[]>> {
  const wanted = items.map((i) => ({ ...i, codes: shortcodesIn(...i.texts) }))
  const pairs = wanted.flatMap((w) => w.codes.map((c) => [c, w.domain ?? ''] as const))
  const result = new Map<string, CustomEmojiRow[]>()
  if (!pairs.length) return result
  const { rows } = await db.raw<{ rows: CustomEmojiRow[] }>(
    `SELECT e.* FROM custom_emojis e
       JOIN unnest(?::text[], ?::text[]) AS w(shortcode, domain)
         ON e.shortcode = w.shortcode AND coalesce(e.domain, '') = w.domain
      WHERE NOT e.disabled AND e.file <> ''`,
    [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  )
  for (const w of wanted)
    result.set(
      w.key,
      w.codes.flatMap(
        (code) => rows.find((r) => r.shortcode === code && (r.domain ?? '') === (w.domain ?? '')) ?? [],
      ),
    )
  return result
}

/** What an account keeps of an emoji its profile uses (`accounts.emojis`). */
export const accountEmoji = (row: CustomEmojiRow): AccountEmoji => ({
  id: row.id,
  content_type: row.content_type,
  updated_at: new Date(row.updated_at).toISOString(),
  shortcode: row.shortcode,
  file: row.file,
  static_file: row.static_file,
  visible_in_picker: row.visible_in_picker,
  category: row.category,
})
