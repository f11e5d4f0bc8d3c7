import type { Knex } from '@roost/db'

/**
 * Full-text search of statuses (docs/discovery.md, "Search"): `status_search_vector(language, spoiler_text, text)`
 * holds the words of the content warning and the text stemmed in the status's language (Postgres' text search
 * configuration for it, `simple` when there is none) and as written (`simple`), so a search finds both a word's
 * forms in the status's language and its exact spelling. A GIN index on that expression answers `@@` (an
 * expression index rather than a stored column, so reads of `statuses.*` do not carry the vector).
 */

/** ISO 639-1 codes and the text search configuration Postgres ships for each. */
const CONFIGS: Record<string, string> = {
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  ca: 'catalan',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  el: 'greek',
  hi: 'hindi',
  hu: 'hungarian',
  id: 'indonesian',
  ga: 'irish',
  it: 'italian',
  lt: 'lithuanian',
  ne: 'nepali',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sr: 'serbian',
  es: 'spanish',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
  yi: 'yiddish',
}

export async function up(db: Knex): Promise<void> {
  // Only the configurations this Postgres has (older versions lack some).
  const present = new Set<string>(await db('pg_catalog.pg_ts_config').pluck('cfgname'))
  const cases = Object.entries(CONFIGS)
    .filter(([, config]) => present.has(config))
    .map(([code, config]) => `WHEN '${code}' THEN '${config}'::regconfig`)
    .join(' ')
  // Qualified, so the function works whatever the search_path of its caller (restores, maintenance).
  const { rows } = await db.raw<{ rows: { schema: string }[] }>('SELECT current_schema() AS schema')
  const schema = rows[0]!.schema
  await db.raw(`
    CREATE FUNCTION search_config(language text) RETURNS regconfig
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT CASE lower(split_part(coalesce(language, ''), '-', 1)) ${cases} ELSE 'simple'::regconfig END $$
  `)
  await db.raw(`
    CREATE FUNCTION status_search_vector(language text, spoiler_text text, text text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT to_tsvector(${schema}.search_config(language), coalesce(spoiler_text, '') || ' ' || coalesce(text, ''))
              || to_tsvector('simple'::regconfig, coalesce(spoiler_text, '') || ' ' || coalesce(text, '')) $$
  `)
  await db.raw(
    'CREATE INDEX statuses_search_vector ON statuses USING gin (status_search_vector(language, spoiler_text, text))',
  )
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX statuses_search_vector')
  await db.raw('DROP FUNCTION status_search_vector(text, text, text)')
  await db.raw('DROP FUNCTION search_config(text)')
}
