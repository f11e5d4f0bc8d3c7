import type { Knex } from '@roost/db'
import { Invalid } from '@roost/errors'
import type { ArchiveRow } from '../db/rows'
import * as outbox from '../outbox/outbox'

/**
 * Archives of one's data (docs/security.md, "Your data"), as Mastodon's Backup: at most one a week per user, built
 * by the accounts worker, kept for a week (ARCHIVE_TTL_MS), then removed with its file by the daily cleanup.
 */
export const ARCHIVE_TTL_MS = 7 * 24 * 3600 * 1000

/** The user's archives of the last week, newest first. */
export async function recentArchives(db: Knex, userId: string): Promise<ArchiveRow[]> {
  return db('archives')
    .where({ user_id: userId })
    .where('created_at', '>', new Date(Date.now() - ARCHIVE_TTL_MS))
    .orderBy('id', 'desc')
}

/** Asks for an archive (`archive.requested`), unless one was asked for within the week (Invalid). */
export async function requestArchive(trx: Knex, userId: string): Promise<ArchiveRow> {
  // The user's row locked: two requests at once are one after the other, and the second sees the first.
  await trx('users').where({ id: userId }).forUpdate().first('id')
  const recent = await trx('archives')
    .where({ user_id: userId })
    .whereNot({ state: 'failed' })
    .where('created_at', '>', new Date(Date.now() - ARCHIVE_TTL_MS))
    .first('id')
  if (recent)
    throw new Invalid('You can request an archive once a week: the last one is less than a week old')
  const [row] = await trx('archives').insert({ user_id: userId }).returning('*')
  await outbox.add(trx, { event: 'archive.requested', archiveId: row.id })
  return row as ArchiveRow
}
