import type { Knex } from '@roost/db'

/**
 * Remote profile field values are now kept as sanitised HTML, with their links (docs/federation.md, "Profile
 * fields"); those stored before were plain text, escaped here so they still show as the text they were. The next
 * refresh of each profile brings its links back.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    UPDATE accounts SET fields = (
      SELECT coalesce(jsonb_agg(jsonb_set(f, '{value}', to_jsonb(
        replace(replace(replace(replace(f->>'value', '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), E'\\n', '<br>')
      ))), '[]'::jsonb)
      FROM jsonb_array_elements(fields) f
    )
    WHERE domain IS NOT NULL AND fields <> '[]'::jsonb`)
}

export async function down(): Promise<void> {}
