import type { Knex } from '@roost/db'
import { parseConfig } from '@roost/service'
import { mediaConfigEnv } from '../config'
import { removeCachedAttachments, removeCachedProfiles, removeOrphans } from './cleanup'
import { mediaFilesOf } from './files'
import { stripMetadata } from './strip-metadata'

/** `tootctl media remove`'s default age, when neither --days nor MEDIA_CACHE_RETENTION_PERIOD says. */
const DEFAULT_DAYS = 7

export const MEDIA_USAGE = `       roost media <command>   (files where the service keeps them: MEDIA_DIR or S3_*)
  remove [--days N] [--prune-profiles | --remove-headers [--include-follows]] [--dry-run]
                    delete our copies of remote attachments older than N days (default
                    MEDIA_CACHE_RETENTION_PERIOD, else 7); they link to their server again
  remove-orphans [--dry-run]
                    delete attachments never posted after a day, and files no row names
  strip-metadata    re-encode every stored image (attachments, previews, avatars, headers) without its
                    metadata (docs/media.md, "Images")`

/** The options of the `media` group (parsed with the CLI's others). */
export const MEDIA_OPTIONS = {
  days: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'prune-profiles': { type: 'boolean' },
  'remove-headers': { type: 'boolean' },
  'include-follows': { type: 'boolean' },
} as const

export interface MediaValues {
  days?: string
  'dry-run'?: boolean
  'prune-profiles'?: boolean
  'remove-headers'?: boolean
  'include-follows'?: boolean
}

/**
 * `roost media …` (docs/media.md, "Cleaning the cache"): the files are those of the service's configuration,
 * read from the same variables. Progress lines go to stderr as the work goes on; the summary is the answer.
 * `usage(why)` makes the CLI's wrong-usage error.
 */
export async function mediaCommand(
  command: string | undefined,
  values: MediaValues,
  db: Knex,
  env: Record<string, string | undefined>,
  usage: (why: string) => Error,
): Promise<string> {
  const config = parseConfig(mediaConfigEnv, env)
  const dryRun = values['dry-run'] === true
  const { progress, end } = progressLine(String(command))
  try {
    return await run(command, values, db, config, usage, dryRun, progress)
  } finally {
    end()
  }
}

/**
 * The progress of a command on stderr: rewritten in place on a terminal; otherwise the first line, every 100th
 * and the last, so a log of a long run stays readable.
 */
function progressLine(command: string) {
  let last = ''
  let printed = ''
  let calls = 0
  return {
    progress(text: string) {
      last = `${command}: ${text}`
      if (process.stderr.isTTY) process.stderr.write(`\r${last}`)
      else if (calls++ % 100 === 0) process.stderr.write(`${(printed = last)}\n`)
    },
    end() {
      if (process.stderr.isTTY && last) process.stderr.write('\n')
      else if (last !== printed) process.stderr.write(`${last}\n`)
    },
  }
}

async function run(
  command: string | undefined,
  values: MediaValues,
  db: Knex,
  config: ReturnType<typeof parseConfig<typeof mediaConfigEnv>>,
  usage: (why: string) => Error,
  dryRun: boolean,
  progress: (line: string) => void,
): Promise<string> {
  const suffix = dryRun ? ' (dry run: nothing changed)' : ''
  switch (command) {
    case 'remove': {
      const days =
        values.days === undefined
          ? (config.MEDIA_CACHE_RETENTION_PERIOD ?? DEFAULT_DAYS)
          : Number(values.days)
      if (!Number.isInteger(days) || days < 0) throw usage('--days is a whole number of days.')
      if (values['prune-profiles'] && values['remove-headers'])
        throw usage('--prune-profiles and --remove-headers should not be specified simultaneously.')
      if (values['include-follows'] && !values['prune-profiles'] && !values['remove-headers'])
        throw usage('--include-follows can only be used with --prune-profiles or --remove-headers.')
      const before = new Date(Date.now() - days * 86_400_000)
      const files = mediaFilesOf(config)
      try {
        if (values['prune-profiles'] || values['remove-headers']) {
          const done = await removeCachedProfiles(db, files, before, {
            dryRun,
            progress,
            headersOnly: values['remove-headers'] === true,
            includeFollows: values['include-follows'] === true,
          })
          return `Removed the profile media of ${done.accounts} remote accounts (${done.files} files)${suffix}`
        }
        const done = await removeCachedAttachments(db, files, before, { dryRun, progress })
        return `Removed ${done.attachments} remote media attachments (${done.files} files)${suffix}`
      } finally {
        files.close?.()
      }
    }
    case 'remove-orphans': {
      const files = mediaFilesOf(config)
      try {
        const done = await removeOrphans(db, files, { dryRun, progress })
        return `Removed ${done.attachments} unattached media attachments and ${done.files} orphan files (${done.bytes} bytes)${suffix}`
      } finally {
        files.close?.()
      }
    }
    case 'strip-metadata': {
      if (dryRun) throw usage('strip-metadata has no --dry-run.')
      const files = mediaFilesOf(config)
      try {
        return await stripMetadata({ db, files, progress })
      } finally {
        files.close?.()
      }
    }
    default:
      throw usage(`Unknown command media ${command ?? ''}.`)
  }
}
