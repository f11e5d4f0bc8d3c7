import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import type { Knex } from '@roost/db'
import { Invalid, NotFound } from '@roost/errors'
import { parseConfig } from '@roost/service'
import { mediaConfigEnv } from './config'
import type { CustomEmojiRow } from './db/rows'
import { createLocalEmoji, deleteEmoji } from './domain/custom_emojis'
import { mediaFilesOf } from './media/files'

/**
 * `roost emoji …` (docs/emoji.md), as Mastodon's `tootctl emoji import` and `purge`: local emojis from image files,
 * their files kept where the service keeps media (MEDIA_DIR or S3_*, read from the same variables).
 */
export const EMOJI_USAGE = `       roost emoji <command>
  import FILE|DIR [--category C] [--unlisted]
                    add each PNG, GIF or WebP image as a local emoji named after its file
                    (blobcat.png is :blobcat:); files that are refused are reported and skipped
  list              the local emojis: shortcode, category, and whether hidden or disabled
  remove SHORTCODE  delete a local emoji and its files`

/** The options of the `emoji` group (parsed with the CLI's others). */
export const EMOJI_OPTIONS = {
  category: { type: 'string' },
  unlisted: { type: 'boolean' },
} as const

const IMAGE = /\.(png|gif|webp)$/i

export async function emojiCommand(
  command: string | undefined,
  target: string | undefined,
  values: { category?: string; unlisted?: boolean },
  db: Knex,
  env: Record<string, string | undefined>,
  usage: (why: string) => Error,
): Promise<string> {
  switch (command) {
    case 'list': {
      const rows: CustomEmojiRow[] = await db('custom_emojis').whereNull('domain').orderBy('shortcode')
      if (!rows.length) return 'No custom emojis.'
      return rows
        .map((r) =>
          [
            `:${r.shortcode}:`,
            r.category ?? '-',
            ...(r.visible_in_picker ? [] : ['unlisted']),
            ...(r.disabled ? ['disabled'] : []),
          ].join('\t'),
        )
        .join('\n')
    }
    case 'import': {
      if (!target) throw usage('A file or directory is required.')
      const files = mediaFilesOf(parseConfig(mediaConfigEnv, env))
      try {
        const info = await stat(target).catch(() => undefined)
        if (!info) throw new Invalid(`No such file or directory: ${target}`)
        const paths = info.isDirectory()
          ? (await readdir(target))
              .filter((n) => IMAGE.test(n))
              .sort()
              .map((n) => path.join(target, n))
          : [target]
        const lines: string[] = []
        let added = 0
        for (const file of paths) {
          const shortcode = path.basename(file).replace(/\.[^.]+$/, '')
          try {
            await createLocalEmoji(db, files, {
              shortcode,
              image: await readFile(file),
              category: values.category,
              visibleInPicker: !values.unlisted,
            })
            added++
          } catch (err) {
            if (!(err instanceof Invalid)) throw err
            lines.push(`${path.basename(file)}: ${err.message}`)
          }
        }
        lines.push(`Imported ${added} of ${paths.length} emoji${paths.length === 1 ? '' : 's'}.`)
        if (!added && paths.length) throw new Invalid(lines.join('\n'))
        return lines.join('\n')
      } finally {
        files.close?.()
      }
    }
    case 'remove': {
      if (!target) throw usage('A shortcode is required.')
      const shortcode = target.replace(/^:|:$/g, '')
      const row: CustomEmojiRow | undefined = await db('custom_emojis')
        .where({ shortcode })
        .whereNull('domain')
        .first()
      if (!row) throw new NotFound(`No local emoji :${shortcode}:`)
      const files = mediaFilesOf(parseConfig(mediaConfigEnv, env))
      try {
        await deleteEmoji(db, files, row.id)
      } finally {
        files.close?.()
      }
      return `Removed :${shortcode}:.`
    }
    default:
      throw usage(`Unknown command ${command ?? ''}.`)
  }
}
