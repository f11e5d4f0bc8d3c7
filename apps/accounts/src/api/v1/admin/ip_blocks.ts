import net from 'node:net'
import type { Request, Response } from 'express'
import { IP_SEVERITIES } from '@roost/auth'
import type { IpSeverity } from '@roost/auth'
import { paginate } from '@roost/db'
import type { Knex } from '@roost/db'
import { ipBlockParams, pageParams, readParams } from '@roost/routes'
import type { z } from 'zod'
import { paramText, readPage, recordNotFound, setPageLinks, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { parseId } from '../../../domain/records'
import { publishIpRules } from '../../../ip_blocks/rules'
import type { IpBlockRow } from '../../../db/rows'
import { requirePermission } from '../../../users/roles'
import { logAction } from '../../../domain/action_log'

/** Mastodon's LIMIT for this endpoint (default page size; capped at twice that). */
const DEFAULT_LIMIT = 100

/** Mastodon's Admin::IpBlock entity (docs: entities/Admin_IpBlock). */
function ipBlockEntity(row: IpBlockRow) {
  return {
    id: row.id,
    ip: row.ip,
    severity: row.severity,
    comment: row.comment,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
  }
}

async function findIpBlock(ctx: AccountsContext, id: unknown): Promise<IpBlockRow> {
  const blockId = parseId(id)
  const row = blockId ? await ctx.db<IpBlockRow>('ip_blocks').where({ id: blockId }).first() : undefined
  if (!row) throw recordNotFound()
  return row
}

const invalid = (message: string) => unprocessable(`Validation failed: ${message}`)

/** `ip`, `severity`, `comment`, `expires_in` (seconds); on update only the given ones change. */
function readIpBlockParams(p: z.output<typeof ipBlockParams>, creating: boolean) {
  const changes: Record<string, unknown> = {}
  const text = (v: string | undefined) => v?.trim()
  if (creating || p.ip !== undefined) {
    const ip = text(p.ip)
    if (!ip) throw invalid("Ip can't be blank")
    const [address = '', prefix, extra] = ip.split('/')
    const max = net.isIPv4(address) ? 32 : 128
    if (
      !net.isIP(address) ||
      extra !== undefined ||
      (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= max))
    )
      throw invalid('Ip is invalid')
    changes.ip = ip
  }
  if (creating || p.severity !== undefined) {
    const severity = text(p.severity)
    if (!severity) throw invalid("Severity can't be blank")
    if (!IP_SEVERITIES.includes(severity as IpSeverity)) throw invalid('Severity is not included in the list')
    changes.severity = severity
  }
  if (p.comment !== undefined) changes.comment = text(p.comment) ?? ''
  if (p.expires_in !== undefined) {
    const raw = text(p.expires_in)
    if (!raw)
      changes.expires_at = null // blank: never expires, as Mastodon
    else if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1)
      throw invalid('Expires in must be a positive number of seconds')
    else changes.expires_at = new Date(Date.now() + Number(raw) * 1000)
  }
  return changes
}

/** Writes a change, translating a duplicate range (the unique index on the normalised CIDR) into Mastodon's 422. */
async function save(
  ctx: AccountsContext,
  staffId: string,
  action: string,
  write: (trx: Knex) => Promise<IpBlockRow[]>,
): Promise<IpBlockRow> {
  let rows
  try {
    rows = await ctx.db.transaction(async (trx) => {
      const written = await write(trx)
      await logAction(trx, {
        accountId: staffId,
        action,
        targetType: 'IpBlock',
        targetId: String(written[0]!.id),
        humanIdentifier: written[0]!.ip,
      })
      return written
    })
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw invalid('Ip has already been taken')
    throw err
  }
  await publishIpRules(ctx)
  return rows[0]!
}

// Postgres normalises the range: host bits are cleared (`10.1.2.3/8` → `10.0.0.0/8`), a bare address gets /32 or /128.
const asCidr = (db: Knex, ip: string) => db.raw('network(?::inet)', [ip])

/** GET /api/v1/admin/ip_blocks — Mastodon's `manage_blocks` permission (admins only); newest first, keyset pages with Link headers. */
export async function listIpBlocks(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const p = readParams(req, pageParams)
  const page = readPage(p, DEFAULT_LIMIT)
  const rows = await paginate<IpBlockRow>(ctx.db('ip_blocks'), 'id', page)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-not-empty',
    prev: 'min_id',
    kept: { limit: paramText(p.limit) },
    path: '/api/v1/admin/ip_blocks',
  })
  res.json(rows.map(ipBlockEntity))
}

/** GET /api/v1/admin/ip_blocks/:id */
export async function showIpBlock(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  res.json(ipBlockEntity(await findIpBlock(ctx, req.params.id)))
}

/** POST /api/v1/admin/ip_blocks */
export async function createIpBlock(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const changes = readIpBlockParams(readParams(req, ipBlockParams), true)
  const row = await save(ctx, staff.account.id, 'create', (trx) =>
    trx<IpBlockRow>('ip_blocks')
      .insert({ ...changes, ip: asCidr(trx, changes.ip as string) })
      .returning('*'),
  )
  res.json(ipBlockEntity(row))
}

/** PUT /api/v1/admin/ip_blocks/:id */
export async function updateIpBlock(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const existing = await findIpBlock(ctx, req.params.id)
  const changes = readIpBlockParams(readParams(req, ipBlockParams), false)
  if (typeof changes.ip === 'string') changes.ip = asCidr(ctx.db, changes.ip)
  const row = await save(ctx, staff.account.id, 'update', (trx) =>
    trx<IpBlockRow>('ip_blocks')
      .where({ id: existing.id })
      .update({ ...changes, updated_at: trx.fn.now() })
      .returning('*'),
  )
  res.json(ipBlockEntity(row))
}

/** DELETE /api/v1/admin/ip_blocks/:id — answers `{}`, as Mastodon. */
export async function deleteIpBlock(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const existing = await findIpBlock(ctx, req.params.id)
  await ctx.db.transaction(async (trx) => {
    await trx('ip_blocks').where({ id: existing.id }).delete()
    await logAction(trx, {
      accountId: staff.account.id,
      action: 'destroy',
      targetType: 'IpBlock',
      targetId: String(existing.id),
      humanIdentifier: existing.ip,
    })
  })
  await publishIpRules(ctx)
  res.json({})
}
