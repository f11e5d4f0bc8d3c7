import type { Knex } from '@roost/db'
import type { MediaFiles } from './files'

/**
 * The media cleanup (docs/media.md, "Cleaning the cache"), as Mastodon's `tootctl media remove`,
 * `tootctl media remove-orphans` and its daily MediaCleanupScheduler: each takes the database and the files,
 * knows nothing of the CLI or the worker that run it, and with `dryRun` reports what it would do and changes
 * nothing.
 */

/** An attachment never put on a status is removed this long after its upload (Mastodon's Vacuum TTL, a day). */
export const UNATTACHED_TTL_MS = 24 * 3600_000

/**
 * A stored file is an orphan only when no row names it and it is older than this: an upload writes its file
 * before the row that names it commits, and must not lose it to a sweep in between.
 */
export const ORPHAN_GRACE_MS = 24 * 3600_000

/**
 * Every column that names a stored file. A file named by none of them is an orphan: a new kind of file (a
 * video's thumbnail, an emoji) adds its column here, or the orphan sweep deletes its files.
 */
export const FILE_COLUMNS: readonly (readonly [table: string, column: string])[] = [
  ['media_attachments', 'file'],
  ['media_attachments', 'preview_file'],
  ['media_attachments', 'thumbnail_file'],
  ['accounts', 'avatar_file'],
  ['accounts', 'header_file'],
  ['custom_emojis', 'file'],
  ['custom_emojis', 'static_file'],
  // Archives of one's data (worker/account-data.ts), removed after a week by their own sweep.
  ['archives', 'file'],
]

const BATCH = 500

export interface CleanupOptions {
  /** Report, change nothing. */
  dryRun?: boolean
  /** A line now and then on what has been done so far. */
  progress?: (line: string) => void
}

/** Deletes stored files one by one; one that fails is left for the next sweep (removing twice is fine). */
async function removeFiles(files: MediaFiles, names: (string | null | undefined)[]) {
  for (const name of names) if (name) await files.remove(name)
}

/**
 * `media remove`: our copies of remote attachments stored before `before` are deleted, and each row keeps its
 * `remote_url`, so that the entity links to the original again and the worker copies it again when its status
 * changes (Mastodon keeps the row and its remote URL the same way). A row that changed in between (copied again
 * by the worker) keeps the new copy.
 */
export async function removeCachedAttachments(
  db: Knex,
  files: MediaFiles,
  before: Date,
  options: CleanupOptions = {},
): Promise<{ attachments: number; files: number }> {
  let attachments = 0
  let removed = 0
  let after = '0'
  for (;;) {
    const rows: { id: string; file: string; preview_file: string | null }[] = await db('media_attachments')
      .whereNotNull('remote_url')
      .whereNot('remote_url', '')
      .whereNot('file', '')
      .where('created_at', '<', before)
      .whereRaw('id > ?::bigint', [after])
      .orderBy('id')
      .limit(BATCH)
      .select('id', 'file', 'preview_file')
    if (!rows.length) break
    after = rows[rows.length - 1]!.id
    for (const row of rows) {
      const names = [row.file, row.preview_file].filter(Boolean)
      if (!options.dryRun) {
        const updated = await db('media_attachments')
          .where({ id: row.id, file: row.file })
          .update({ file: '', preview_file: null })
        if (!updated) continue
        await removeFiles(files, names)
      }
      attachments++
      removed += names.length
    }
    options.progress?.(`${attachments} remote attachments, ${removed} files`)
  }
  return { attachments, files: removed }
}

/**
 * `media remove --prune-profiles` / `--remove-headers`: our copies of remote accounts' avatars and headers (or
 * headers only), for accounts not fetched since `before`; the account keeps `avatar_remote_url` and
 * `header_remote_url`, which the entity then links to. As Mastodon, accounts that follow or are followed by
 * anyone are kept unless `includeFollows`.
 */
export async function removeCachedProfiles(
  db: Knex,
  files: MediaFiles,
  before: Date,
  options: CleanupOptions & { headersOnly?: boolean; includeFollows?: boolean } = {},
): Promise<{ accounts: number; files: number }> {
  let accounts = 0
  let removed = 0
  let after = '0'
  for (;;) {
    const query = db('accounts as a')
      .whereNotNull('a.domain')
      .where((q) =>
        options.headersOnly
          ? q.whereNotNull('a.header_file')
          : q.whereNotNull('a.avatar_file').orWhereNotNull('a.header_file'),
      )
      .whereRaw('coalesce(a.fetched_at, a.created_at) < ?', [before])
      .whereRaw('a.id > ?::bigint', [after])
      .orderBy('a.id')
      .limit(BATCH)
      .select('a.id', 'a.avatar_file', 'a.header_file')
    if (!options.includeFollows)
      query.whereNotExists((q) =>
        q
          .select(db.raw('1'))
          .from('follows as f')
          .whereRaw('f.account_id = a.id or f.target_account_id = a.id'),
      )
    const rows: { id: string; avatar_file: string | null; header_file: string | null }[] = await query
    if (!rows.length) break
    after = rows[rows.length - 1]!.id
    for (const row of rows) {
      const names = options.headersOnly ? [row.header_file] : [row.avatar_file, row.header_file]
      const count = names.filter(Boolean).length
      if (!options.dryRun) {
        const change = options.headersOnly ? { header_file: null } : { avatar_file: null, header_file: null }
        // Only the files read above: a profile fetched meanwhile keeps its new ones.
        const updated = await db('accounts')
          .where({ id: row.id, avatar_file: row.avatar_file, header_file: row.header_file })
          .update(change)
        if (!updated) continue
        await removeFiles(files, names)
      }
      accounts++
      removed += count
    }
    options.progress?.(`${accounts} remote accounts, ${removed} files`)
  }
  return { accounts, files: removed }
}

/**
 * `media remove-orphans`, and the worker's daily sweep: attachments never put on a status (nor on a scheduled
 * one) a day after their upload, rows and files (Mastodon's Vacuum::MediaAttachmentsVacuum); then every stored
 * file that no row names (FILE_COLUMNS) and that is older than ORPHAN_GRACE_MS (Mastodon's remove-orphans).
 */
export async function removeOrphans(
  db: Knex,
  files: MediaFiles,
  options: CleanupOptions & { now?: Date } = {},
): Promise<{ attachments: number; files: number; bytes: number }> {
  const now = options.now ?? new Date()
  let attachments = 0
  let after = '0'
  for (;;) {
    const rows: { id: string; file: string; preview_file: string | null }[] = await db('media_attachments')
      .whereNull('status_id')
      .whereNull('scheduled_status_id')
      .where('created_at', '<', new Date(now.getTime() - UNATTACHED_TTL_MS))
      .whereRaw('id > ?::bigint', [after])
      .orderBy('id')
      .limit(BATCH)
      .select('id', 'file', 'preview_file')
    if (!rows.length) break
    after = rows[rows.length - 1]!.id
    for (const row of rows) {
      if (!options.dryRun) {
        // Still unattached as it is deleted: a status posted with it meanwhile keeps it.
        const deleted = await db('media_attachments')
          .where({ id: row.id })
          .whereNull('status_id')
          .whereNull('scheduled_status_id')
          .delete()
        if (!deleted) continue
        await removeFiles(files, [row.file, row.preview_file])
      }
      attachments++
    }
    options.progress?.(`${attachments} unattached attachments`)
  }

  let seen = 0
  let orphans = 0
  let bytes = 0
  const cutoff = now.getTime() - ORPHAN_GRACE_MS
  let batch: { name: string; size: number }[] = []
  const sweep = async () => {
    const named = await namedFiles(
      db,
      batch.map((f) => f.name),
    )
    for (const file of batch) {
      if (named.has(file.name)) continue
      if (!options.dryRun) await files.remove(file.name)
      orphans++
      bytes += file.size
    }
    batch = []
    options.progress?.(`${seen} files checked, ${orphans} orphans (${bytes} bytes)`)
  }
  for await (const file of files.list()) {
    seen++
    if (file.modified.getTime() >= cutoff) continue
    batch.push(file)
    if (batch.length >= BATCH) await sweep()
  }
  if (batch.length) await sweep()
  return { attachments, files: orphans, bytes }
}

/** Which of `names` some row names. */
async function namedFiles(db: Knex, names: string[]): Promise<Set<string>> {
  const found = new Set<string>()
  for (const [table, column] of FILE_COLUMNS) {
    const rows: string[] = await db(table).whereIn(column, names).pluck(column)
    for (const name of rows) found.add(name)
  }
  return found
}

/**
 * The accounts worker's daily `media.cleanup` timer (docs/activities.md, "Timers"): the orphan sweep, and with
 * MEDIA_CACHE_RETENTION_PERIOD the copies of remote attachments older than that many days (Mastodon's
 * MediaCleanupScheduler and Vacuum).
 */
export async function dailyMediaCleanup(db: Knex, files: MediaFiles, retentionDays: number | undefined) {
  const orphans = await removeOrphans(db, files)
  const cached = retentionDays
    ? await removeCachedAttachments(db, files, new Date(Date.now() - retentionDays * 86_400_000))
    : undefined
  return { orphans, cached }
}
