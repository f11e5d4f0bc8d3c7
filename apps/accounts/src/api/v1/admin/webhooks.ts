import { randomBytes } from 'node:crypto'
import type { Request, Response } from 'express'
import type { Knex } from '@roost/db'
import { WEBHOOK_EVENTS } from '@roost/events'
import { adminWebhookParams, readParams } from '@roost/routes'
import { recordNotFound, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { logAction } from '../../../domain/action_log'
import { publishWebhookEvents } from '../../../domain/webhooks'
import { parseId } from '../../../domain/records'
import { requirePermission } from '../../../users/roles'

/**
 * Admin webhooks (Roost additions: Mastodon manages them on its web pages only; docs/moderation.md, "Webhooks"):
 * a URL, the events it gets and its secret; the accounts worker sends them (worker/webhooks.ts).
 */

interface WebhookRow {
  id: string
  url: string
  events: string[]
  secret: string
  enabled: boolean
  created_at: Date
  updated_at: Date
}

const invalid = (message: string) => unprocessable(`Validation failed: ${message}`)

/** Mastodon's secret: 20 random bytes as hex. */
const newSecret = () => randomBytes(20).toString('hex')

/** The Webhook as the admin pages show it, its secret included (the receiver's check needs it). */
const renderWebhook = (row: WebhookRow) => ({
  id: String(row.id),
  url: row.url,
  events: row.events,
  secret: row.secret,
  enabled: row.enabled,
  created_at: new Date(row.created_at).toISOString(),
  updated_at: new Date(row.updated_at).toISOString(),
})

async function findWebhook(ctx: AccountsContext, id: unknown): Promise<WebhookRow> {
  const hookId = parseId(id)
  const row = hookId ? await ctx.db<WebhookRow>('webhooks').where({ id: hookId }).first() : undefined
  if (!row) throw recordNotFound()
  return row
}

function readWebhook(req: Request, creating: boolean) {
  const p = readParams(req, adminWebhookParams)
  const changes: Partial<WebhookRow> = {}
  if (creating || p.url !== undefined) {
    const url = p.url?.trim() ?? ''
    if (!url) throw invalid("Url can't be blank")
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw invalid('Url is invalid')
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw invalid('Url is invalid')
    changes.url = parsed.toString()
  }
  if (creating || p.events !== undefined) {
    const events = [...new Set((p.events ?? []).filter((e) => e !== ''))]
    if (!events.length) throw invalid("Events can't be blank")
    const unknown = events.find((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e))
    if (unknown) throw invalid(`Events contains an unknown event: ${unknown}`)
    changes.events = events
  }
  if (p.enabled !== undefined) changes.enabled = p.enabled
  return changes
}

const logHook = (trx: Knex, staffId: string, action: string, row: WebhookRow) =>
  logAction(trx, {
    accountId: staffId,
    action,
    targetType: 'Webhook',
    targetId: String(row.id),
    humanIdentifier: row.url,
  })

/** GET /api/v1/admin/webhooks — every webhook, oldest first (there are few). */
export async function listWebhooks(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const rows = await ctx.db<WebhookRow>('webhooks').orderBy('id')
  res.json(rows.map(renderWebhook))
}

/** GET /api/v1/admin/webhooks/:id */
export async function showWebhook(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  res.json(renderWebhook(await findWebhook(ctx, req.params.id)))
}

/** POST /api/v1/admin/webhooks — `url`, `events[]`, `enabled` (default true); a new secret. */
export async function createWebhook(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const changes = readWebhook(req, true)
  const row = await ctx.db.transaction(async (trx) => {
    const [created]: WebhookRow[] = await trx('webhooks')
      .insert({ ...changes, events: changes.events, secret: newSecret() })
      .returning('*')
    await logHook(trx, staff.account.id, 'create', created!)
    return created!
  })
  await publishWebhookEvents(ctx.db, ctx.redis, ctx.config.REDIS_PREFIX)
  res.json(renderWebhook(row))
}

/** The changes of a webhook: logged with Mastodon's verb, answered with the webhook. */
async function change(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  action: string,
  changes: (existing: WebhookRow) => Partial<WebhookRow>,
) {
  const staff = await requirePermission(ctx, req)
  const existing = await findWebhook(ctx, req.params.id)
  const row = await ctx.db.transaction(async (trx) => {
    const [updated]: WebhookRow[] = await trx('webhooks')
      .where({ id: existing.id })
      .update({ ...changes(existing), updated_at: trx.fn.now() })
      .returning('*')
    await logHook(trx, staff.account.id, action, updated!)
    return updated!
  })
  await publishWebhookEvents(ctx.db, ctx.redis, ctx.config.REDIS_PREFIX)
  res.json(renderWebhook(row))
}

/** PUT /api/v1/admin/webhooks/:id — only what is given changes. */
export const updateWebhook = (ctx: AccountsContext, req: Request, res: Response) =>
  change(ctx, req, res, 'update', () => readWebhook(req, false))
/** POST /api/v1/admin/webhooks/:id/enable */
export const enableWebhook = (ctx: AccountsContext, req: Request, res: Response) =>
  change(ctx, req, res, 'enable', () => ({ enabled: true }))
/** POST /api/v1/admin/webhooks/:id/disable — deliveries waiting are dropped when their turn comes. */
export const disableWebhook = (ctx: AccountsContext, req: Request, res: Response) =>
  change(ctx, req, res, 'disable', () => ({ enabled: false }))
/** POST /api/v1/admin/webhooks/:id/rotate_secret — deliveries from now on are signed with the new secret. */
export const rotateWebhookSecret = (ctx: AccountsContext, req: Request, res: Response) =>
  change(ctx, req, res, 'rotate_secret', () => ({ secret: newSecret() }))

/** DELETE /api/v1/admin/webhooks/:id — answers `{}`. */
export async function deleteWebhook(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const existing = await findWebhook(ctx, req.params.id)
  await ctx.db.transaction(async (trx) => {
    await trx('webhooks').where({ id: existing.id }).delete()
    await logHook(trx, staff.account.id, 'destroy', existing)
  })
  await publishWebhookEvents(ctx.db, ctx.redis, ctx.config.REDIS_PREFIX)
  res.json({})
}
