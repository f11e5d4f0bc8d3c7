import type { Knex } from '@roost/db'

/**
 * Moderation notes (docs/moderation.md, "Moderation notes"): Mastodon's AccountModerationNote, on an account, and
 * ReportNote, on a report. Only staff with `manage_reports` read and write them; the account they are about never
 * sees them.
 */

/** What a note is on: the table it lives in, the column naming its subject, and the audit log's name for it. */
export const NOTE_SUBJECTS = {
  account: { table: 'account_moderation_notes', column: 'target_account_id', model: 'AccountModerationNote' },
  report: { table: 'report_notes', column: 'report_id', model: 'ReportNote' },
} as const
export type NoteSubject = keyof typeof NOTE_SUBJECTS

/** Mastodon's CONTENT_SIZE_LIMIT of both. */
export const NOTE_MAX_CHARS = 2000

export interface NoteRow {
  id: string
  /** The author. */
  account_id: string
  content: string
  created_at: Date
}

/** The notes on one account or report, as a query to page (newest first by `id`). */
export const notesOn = (db: Knex, subject: NoteSubject, subjectId: string) =>
  db(NOTE_SUBJECTS[subject].table)
    .where(NOTE_SUBJECTS[subject].column, subjectId)
    .select('id', 'account_id', 'content', 'created_at')

export async function addNote(
  trx: Knex,
  subject: NoteSubject,
  note: { subjectId: string; authorId: string; content: string },
): Promise<NoteRow> {
  const [row] = await trx(NOTE_SUBJECTS[subject].table)
    .insert({
      [NOTE_SUBJECTS[subject].column]: note.subjectId,
      account_id: note.authorId,
      content: note.content,
    })
    .returning(['id', 'account_id', 'content', 'created_at'])
  return row as NoteRow
}

/** The note `noteId` on that account or report, if it is one of its notes. */
export const findNote = (db: Knex, subject: NoteSubject, subjectId: string, noteId: string) =>
  notesOn(db, subject, subjectId).where('id', noteId).first() as Promise<NoteRow | undefined>

export async function removeNote(trx: Knex, subject: NoteSubject, noteId: string): Promise<void> {
  await trx(NOTE_SUBJECTS[subject].table).where({ id: noteId }).delete()
}
