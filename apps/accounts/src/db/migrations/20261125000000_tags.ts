import type { Knex } from '@roost/db'

/*
 * Frozen: the hashtag rules as they were when this migration was written (domain/tags.ts then), copied so that the
 * migration does what it did whatever the live code becomes. A migration imports no live code.
 */
const ALPHA = '\\p{Alpha}'
const SEPARATORS = '_\\u00B7\\u30FB\\u200c'
const INVALID_CHARS = new RegExp(`[^${ALPHA}\\p{Nd}\\u0E47-\\u0E4E${SEPARATORS}]`, 'gu')
const NON_ASCII =
  'ÀÁÂÃÄÅàáâãäåĀāĂăĄąÇçĆćĈĉĊċČčÐðĎďĐđÈÉÊËèéêëĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦħÌÍÎÏìíîïĨĩĪīĬĭĮįİıĴĵĶķĸĹĺĻļĽľĿŀŁłÑñŃńŅņŇňŉŊŋÒÓÔÕÖØòóôõöøŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšſŢţŤťŦŧÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲųŴŵÝýÿŶŷŸŹźŻżŽž'
const ASCII =
  'AAAAAAaaaaaaAaAaAaCcCcCcCcCcDdDdDdEEEEeeeeEeEeEeEeEeGgGgGgGgHhHhIIIIiiiiIiIiIiIiIiJjKkkLlLlLlLlLlNnNnNnNnnNnOOOOOOooooooOoOoOoRrRrRrSsSsSsSssTtTtTtUUUUuuuuUuUuUuUuUuUuWwYyyYyYZzZzZz'
const FOLD = new Map([...NON_ASCII].map((c, i) => [c, ASCII[i]!]))
const normalizeTag = (name: string) =>
  [...name.normalize('NFKC').toLowerCase()]
    .map((c) => FOLD.get(c) ?? c)
    .join('')
    .replace(INVALID_CHARS, '')
const displayName = (name: string) => name.replace(INVALID_CHARS, '')

/**
 * Mastodon's Tag, its statuses join and TagFollow (docs/hashtags.md). A tag row per normalised name (unique,
 * with a text_pattern_ops index so prefix searches use it), keeping the spelling first written as display_name;
 * `usable`, `listable`, `trendable` are moderation switches (null: the default, allowed). `status_tags` now points
 * at tags instead of holding a lower-cased name: existing rows are moved, normalised as Mastodon does.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('tags', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.text('name').notNullable()
    t.text('display_name').notNullable()
    t.boolean('usable')
    t.boolean('listable')
    t.boolean('trendable')
    t.timestamp('last_status_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
  })
  await db.raw('create unique index tags_name_unique on tags (name text_pattern_ops)')

  await db.schema.alterTable('status_tags', (t) => {
    t.bigInteger('tag_id').references('tags.id').onDelete('CASCADE')
  })
  const names: string[] = await db('status_tags').distinct('name').pluck('name')
  for (const name of names) {
    const normalized = normalizeTag(name)
    if (!normalized) continue
    await db('tags')
      .insert({ name: normalized, display_name: displayName(name) })
      .onConflict('name')
      .ignore()
    const tag = await db('tags').where({ name: normalized }).first('id')
    await db('status_tags').where({ name }).update({ tag_id: tag.id })
  }
  await db('status_tags').whereNull('tag_id').delete()
  // Two spellings of one tag on a status become one row.
  await db.raw(`
    delete from status_tags a using status_tags b
    where a.status_id = b.status_id and a.tag_id = b.tag_id and a.name > b.name`)
  await db.schema.alterTable('status_tags', (t) => {
    t.dropPrimary()
    t.dropColumn('name')
  })
  await db.schema.alterTable('status_tags', (t) => {
    t.bigInteger('tag_id').notNullable().alter()
    t.primary(['tag_id', 'status_id'])
    t.index(['status_id'])
  })

  await db.schema.createTable('tag_follows', (t) => {
    t.bigInteger('id').primary().defaultTo(db.raw('snowflake_id()'))
    t.bigInteger('account_id').notNullable().references('accounts.id').onDelete('CASCADE')
    t.bigInteger('tag_id').notNullable().references('tags.id').onDelete('CASCADE')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now())
    t.unique(['account_id', 'tag_id'])
    // Fan-out reads a tag's followers a page at a time.
    t.index(['tag_id', 'id'])
  })
}
