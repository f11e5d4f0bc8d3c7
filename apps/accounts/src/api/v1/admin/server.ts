import type { Request, Response } from 'express'
import type { Knex } from '@roost/db'
import { paginate } from '@roost/db'
import {
  adminAnnouncementParams,
  adminRuleParams,
  adminSettingsParams,
  pageParams,
  readParams,
} from '@roost/routes'
import { paramText, readPage, recordNotFound, setPageLinks, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import type { AnnouncementRow, RuleRow } from '../../../db/rows'
import { logAction } from '../../../domain/action_log'
import { createAnnouncement, publishAnnouncement, withdrawAnnouncement } from '../../../domain/announcements'
import { parseId } from '../../../domain/records'
import { addRule, removeRule } from '../../../domain/rules'
import type { ServerSettings } from '../../../domain/server_settings'
import { readSettings, writeSettings } from '../../../domain/server_settings'
import * as outbox from '../../../outbox/outbox'
import { requirePermission } from '../../../users/roles'

/**
 * Server settings, rules and announcements (Roost additions: Mastodon manages them on its web pages only;
 * docs/moderation.md). Each change is in the audit log.
 */

const invalid = (message: string) => unprocessable(`Validation failed: ${message}`)

const log = (trx: Knex, staffId: string, action: string, type: string, id: string | null, name: string) =>
  logAction(trx, { accountId: staffId, action, targetType: type, targetId: id, humanIdentifier: name })

// ---------------------------------------------------------------------------------------------------------------
// Settings

async function renderSettings(ctx: AccountsContext) {
  const { settings, updatedAt } = await readSettings(ctx.db, ctx.config)
  return { ...settings, updated_at: updatedAt ? new Date(updatedAt).toISOString() : null }
}

/** GET /api/v1/admin/settings — every setting as it is now (the environment's value where never changed). */
export async function showSettings(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  res.json(await renderSettings(ctx))
}

/**
 * PUT /api/v1/admin/settings — the given settings change, at once for /api/v2/instance and sign-ups. A contact
 * username must name a local account; languages are ISO 639 codes.
 */
export async function updateSettings(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const p = readParams(req, adminSettingsParams)
  const changes: Partial<ServerSettings> = {}
  for (const key of [
    'site_title',
    'site_short_description',
    'site_extended_description',
    'site_contact_email',
    'closed_registrations_message',
  ] as const)
    if (p[key] !== undefined) changes[key] = p[key].trim()
  if (changes.site_title === '') throw invalid("Site title can't be blank")
  if (changes.site_contact_email && !/^[^\s@]+@[^\s@]+$/.test(changes.site_contact_email))
    throw invalid('Site contact email is invalid')
  if (p.site_contact_username !== undefined) {
    const name = p.site_contact_username.trim().replace(/^@/, '')
    if (name) {
      const found = await ctx
        .db('accounts')
        .whereNull('domain')
        .whereRaw('lower(username) = lower(?)', [name])
        .first('id')
      if (!found) throw invalid('Site contact username is not a local account')
    }
    changes.site_contact_username = name
  }
  if (p.registrations_mode !== undefined) changes.registrations_mode = p.registrations_mode
  if (p.require_invite_text !== undefined) changes.require_invite_text = p.require_invite_text
  if (p.limited_federation_mode !== undefined) changes.limited_federation_mode = p.limited_federation_mode
  if (p.languages !== undefined) {
    const languages = [...new Set(p.languages.map((l) => l.trim().toLowerCase()).filter(Boolean))]
    if (languages.some((l) => !/^[a-z]{2,3}$/.test(l))) throw invalid('Languages must be ISO 639 codes')
    changes.languages = languages
  }
  await ctx.db.transaction(async (trx) => {
    await writeSettings(trx, changes)
    if (Object.keys(changes).length)
      await logAction(trx, {
        accountId: staff.account.id,
        action: 'update',
        targetType: 'Setting',
        targetId: null,
        humanIdentifier: Object.keys(changes).join(', '),
        details: changes,
      })
  })
  res.json(await renderSettings(ctx))
}

// ---------------------------------------------------------------------------------------------------------------
// Rules

const renderAdminRule = (r: RuleRow & { created_at?: Date; updated_at?: Date }) => ({
  id: String(r.id),
  text: r.text,
  hint: r.hint,
  priority: r.priority,
  created_at: r.created_at ? new Date(r.created_at).toISOString() : null,
  updated_at: r.updated_at ? new Date(r.updated_at).toISOString() : null,
})

async function findRule(ctx: AccountsContext, id: unknown): Promise<RuleRow> {
  const ruleId = parseId(id)
  const row = ruleId
    ? await ctx.db<RuleRow>('rules').where({ id: ruleId }).whereNull('deleted_at').first()
    : undefined
  if (!row) throw recordNotFound()
  return row
}

/** GET /api/v1/admin/rules — the rules in force, in their order. */
export async function listAdminRules(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const rows: RuleRow[] = await ctx
    .db('rules')
    .whereNull('deleted_at')
    .orderBy([{ column: 'priority' }, { column: 'id' }])
  res.json(rows.map(renderAdminRule))
}

/** POST /api/v1/admin/rules — `text` (required), `hint`, `priority` (default: last). */
export async function createAdminRule(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const p = readParams(req, adminRuleParams)
  const text = p.text?.trim() ?? ''
  if (!text) throw invalid("Text can't be blank")
  const row = await ctx.db.transaction(async (trx) => {
    const created = await addRule(trx, { text, hint: p.hint?.trim(), priority: p.priority })
    await log(trx, staff.account.id, 'create', 'Rule', String(created.id), text)
    return created
  })
  res.json(renderAdminRule(row))
}

/** PUT /api/v1/admin/rules/:id — only what is given changes. */
export async function updateAdminRule(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const existing = await findRule(ctx, req.params.id)
  const p = readParams(req, adminRuleParams)
  const changes: Partial<RuleRow> = {}
  if (p.text !== undefined) {
    if (!p.text.trim()) throw invalid("Text can't be blank")
    changes.text = p.text.trim()
  }
  if (p.hint !== undefined) changes.hint = p.hint.trim()
  if (p.priority !== undefined) changes.priority = p.priority
  const row = await ctx.db.transaction(async (trx) => {
    const [updated]: RuleRow[] = await trx('rules')
      .where({ id: existing.id })
      .update({ ...changes, updated_at: trx.fn.now() })
      .returning('*')
    await log(trx, staff.account.id, 'update', 'Rule', String(existing.id), updated!.text)
    return updated!
  })
  res.json(renderAdminRule(row))
}

/** DELETE /api/v1/admin/rules/:id — out of the list; reports citing it still name it. Answers `{}`. */
export async function deleteAdminRule(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const existing = await findRule(ctx, req.params.id)
  await ctx.db.transaction(async (trx) => {
    await removeRule(trx, String(existing.id))
    await log(trx, staff.account.id, 'destroy', 'Rule', String(existing.id), existing.text)
  })
  res.json({})
}

// ---------------------------------------------------------------------------------------------------------------
// Announcements

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

const renderAdminAnnouncement = (a: AnnouncementRow) => ({
  id: String(a.id),
  text: a.text,
  published: a.published,
  published_at: iso(a.published_at),
  starts_at: iso(a.starts_at),
  ends_at: iso(a.ends_at),
  all_day: a.all_day,
  created_at: iso(a.created_at),
  updated_at: iso(a.updated_at),
})

async function findAdminAnnouncement(ctx: AccountsContext, id: unknown): Promise<AnnouncementRow> {
  const announcementId = parseId(id)
  const row = announcementId
    ? await ctx.db<AnnouncementRow>('announcements').where({ id: announcementId }).first()
    : undefined
  if (!row) throw recordNotFound()
  return row
}

/** A time parameter: undefined (not given), null (blank: cleared) or a date; anything else is a 422. */
function readTime(value: string | undefined, name: string): Date | null | undefined {
  if (value === undefined) return undefined
  if (!value.trim()) return null
  const t = Date.parse(value)
  if (Number.isNaN(t)) throw invalid(`${name} is not a time`)
  return new Date(t)
}

/** GET /api/v1/admin/announcements — every announcement, drafts and ended ones too, newest first, paged. */
export async function listAdminAnnouncements(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const p = readParams(req, pageParams)
  const page = readPage(p, 40)
  const rows = await paginate<AnnouncementRow>(ctx.db('announcements'), 'id', page)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-full',
    prev: 'min_id',
    kept: { limit: paramText(p.limit) },
    path: '/api/v1/admin/announcements',
  })
  res.json(rows.map(renderAdminAnnouncement))
}

/** POST /api/v1/admin/announcements — published at once unless `published=false` (a draft). */
export async function createAdminAnnouncement(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const p = readParams(req, adminAnnouncementParams)
  const row = await ctx.db.transaction(async (trx) => {
    const created = await createAnnouncement(trx, {
      text: p.text ?? '',
      startsAt: readTime(p.starts_at, 'Starts at') ?? undefined,
      endsAt: readTime(p.ends_at, 'Ends at') ?? undefined,
      allDay: p.all_day,
      draft: p.published === false,
    })
    await log(trx, staff.account.id, 'create', 'Announcement', String(created.id), created.text.slice(0, 100))
    return created
  })
  res.json(renderAdminAnnouncement(row))
}

/** PUT /api/v1/admin/announcements/:id — a published one is sent to the streams again. */
export async function updateAdminAnnouncement(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const existing = await findAdminAnnouncement(ctx, req.params.id)
  const p = readParams(req, adminAnnouncementParams)
  const changes: Partial<AnnouncementRow> = {}
  if (p.text !== undefined) {
    if (!p.text.trim()) throw invalid("Text can't be blank")
    changes.text = p.text
  }
  const startsAt = readTime(p.starts_at, 'Starts at')
  const endsAt = readTime(p.ends_at, 'Ends at')
  if (startsAt !== undefined) changes.starts_at = startsAt
  if (endsAt !== undefined) changes.ends_at = endsAt
  if (p.all_day !== undefined) changes.all_day = p.all_day
  const starts = changes.starts_at !== undefined ? changes.starts_at : existing.starts_at
  const ends = changes.ends_at !== undefined ? changes.ends_at : existing.ends_at
  if (starts && ends && ends < starts) throw invalid('Ends at must be after the start')
  const row = await ctx.db.transaction(async (trx) => {
    const [updated]: AnnouncementRow[] = await trx('announcements')
      .where({ id: existing.id })
      .update({ ...changes, updated_at: trx.fn.now() })
      .returning('*')
    if (updated!.published)
      await outbox.add(trx, { event: 'announcement.published', announcementId: updated!.id })
    await log(
      trx,
      staff.account.id,
      'update',
      'Announcement',
      String(existing.id),
      updated!.text.slice(0, 100),
    )
    return updated!
  })
  res.json(renderAdminAnnouncement(row))
}

/** POST /api/v1/admin/announcements/:id/publish and …/unpublish; DELETE /api/v1/admin/announcements/:id. */
function announcementAction(action: 'publish' | 'unpublish' | 'destroy') {
  return async (ctx: AccountsContext, req: Request, res: Response) => {
    const staff = await requirePermission(ctx, req)
    const existing = await findAdminAnnouncement(ctx, req.params.id)
    const row = await ctx.db.transaction(async (trx) => {
      let after: AnnouncementRow | undefined
      if (action === 'publish') after = await publishAnnouncement(trx, existing.id)
      else await withdrawAnnouncement(trx, existing.id, { delete: action === 'destroy' })
      await log(
        trx,
        staff.account.id,
        action,
        'Announcement',
        String(existing.id),
        existing.text.slice(0, 100),
      )
      return (
        after ??
        (action === 'destroy' ? undefined : await trx('announcements').where({ id: existing.id }).first())
      )
    })
    res.json(row ? renderAdminAnnouncement(row) : {})
  }
}

export const publishAdminAnnouncement = announcementAction('publish')
export const unpublishAdminAnnouncement = announcementAction('unpublish')
export const deleteAdminAnnouncement = announcementAction('destroy')
