import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { adminNoteParams, pageParams, readParams } from '@roost/routes'
import { forbidden, paramText, readPage, recordNotFound, setPageLinks, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import type { AccountRow } from '../../../db/rows'
import { logAction } from '../../../domain/action_log'
import type { NoteRow, NoteSubject } from '../../../domain/moderation_notes'
import { addNote, findNote, NOTE_SUBJECTS, notesOn, removeNote } from '../../../domain/moderation_notes'
import { parseId } from '../../../domain/records'
import { renderAccount, urlsOf } from '../../../entities/account'
import { accountsById } from '../../../queries/accounts'
import { overrides, requirePermission, roleOf } from '../../../users/roles'

/**
 * Moderation notes on an account (/api/v1/admin/accounts/:id/notes) or a report (/api/v1/admin/reports/:id/notes):
 * Roost additions, as Mastodon's AccountModerationNote and ReportNote, which it keeps on its web pages only
 * (docs/moderation.md, "Moderation notes"). `manage_reports`; writing and deleting one is in the audit log.
 */

const NOTES_LIMIT = 40

/** The account or report the path names, and its name in the audit log; 404 when there is none. */
async function findSubject(ctx: AccountsContext, subject: NoteSubject, id: unknown) {
  const subjectId = parseId(id)
  if (subjectId && subject === 'account') {
    const account: AccountRow | undefined = await ctx.db('accounts').where({ id: subjectId }).first()
    if (account)
      return {
        id: subjectId,
        name: account.domain ? `${account.username}@${account.domain}` : account.username,
      }
  }
  if (subjectId && subject === 'report' && (await ctx.db('reports').where({ id: subjectId }).first('id')))
    return { id: subjectId, name: `#${subjectId}` }
  throw recordNotFound()
}

async function renderNotes(ctx: AccountsContext, rows: NoteRow[]) {
  const authors = await accountsById(
    ctx.db,
    rows.map((r) => String(r.account_id)),
  )
  const urls = urlsOf(ctx.config)
  return rows.map((r) => {
    const author = authors.get(String(r.account_id))
    return {
      id: String(r.id),
      content: r.content,
      created_at: new Date(r.created_at).toISOString(),
      account: author ? renderAccount(author, urls) : null,
    }
  })
}

/** GET …/:id/notes — newest first, keyset pages with Link headers (limit 40/80). */
function listNotes(subject: NoteSubject) {
  return async (ctx: AccountsContext, req: Request, res: Response) => {
    await requirePermission(ctx, req)
    const { id } = await findSubject(ctx, subject, req.params.id)
    const p = readParams(req, pageParams)
    const page = readPage(p, NOTES_LIMIT)
    const rows = await paginate<NoteRow>(notesOn(ctx.db, subject, id), 'id', page)
    setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
      limit: page.limit,
      cursor: (row) => row.id,
      next: 'when-full',
      prev: 'min_id',
      kept: { limit: paramText(p.limit) },
    })
    res.json(await renderNotes(ctx, rows))
  }
}

/** POST …/:id/notes — `content`, not blank, at most 2000 characters. Answers the note. */
function createNote(subject: NoteSubject) {
  return async (ctx: AccountsContext, req: Request, res: Response) => {
    const staff = await requirePermission(ctx, req)
    const target = await findSubject(ctx, subject, req.params.id)
    const content = readParams(req, adminNoteParams).content?.trim() ?? ''
    if (!content) throw unprocessable("Validation failed: Content can't be blank")
    const row = await ctx.db.transaction(async (trx) => {
      const note = await addNote(trx, subject, { subjectId: target.id, authorId: staff.account.id, content })
      await logAction(trx, {
        accountId: staff.account.id,
        action: 'create',
        targetType: NOTE_SUBJECTS[subject].model,
        targetId: String(note.id),
        humanIdentifier: target.name,
      })
      return note
    })
    res.json((await renderNotes(ctx, [row]))[0])
  }
}

/**
 * DELETE …/:id/notes/:note_id — as Mastodon allows: its author, or staff whose role ranks above the author's.
 * Answers `{}`.
 */
function deleteNote(subject: NoteSubject) {
  return async (ctx: AccountsContext, req: Request, res: Response) => {
    const staff = await requirePermission(ctx, req)
    const target = await findSubject(ctx, subject, req.params.id)
    const noteId = parseId(req.params.note_id)
    const note = noteId ? await findNote(ctx.db, subject, target.id, noteId) : undefined
    if (!note) throw recordNotFound()
    if (String(note.account_id) !== staff.account.id) {
      const author = await ctx.db('users').where({ account_id: note.account_id }).first('role')
      if (!overrides(staff.role.role, author ? (await roleOf(ctx.db, author.role)).role : undefined))
        throw forbidden()
    }
    await ctx.db.transaction(async (trx) => {
      await removeNote(trx, subject, String(note.id))
      await logAction(trx, {
        accountId: staff.account.id,
        action: 'destroy',
        targetType: NOTE_SUBJECTS[subject].model,
        targetId: String(note.id),
        humanIdentifier: target.name,
      })
    })
    res.json({})
  }
}

export const listAccountNotes = listNotes('account')
export const createAccountNote = createNote('account')
export const deleteAccountNote = deleteNote('account')
export const listReportNotes = listNotes('report')
export const createReportNote = createNote('report')
export const deleteReportNote = deleteNote('report')
