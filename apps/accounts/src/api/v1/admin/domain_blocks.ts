import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { adminDomainBlockParams, pageParams, readParams } from '@roost/routes'
import type { z } from 'zod'
import { HttpError, paramText, readPage, recordNotFound, setPageLinks, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { parseId } from '../../../domain/records'
import {
  applyDomainBlock,
  DOMAIN_BLOCK_SEVERITIES,
  domainBlockFor,
  liftDomainBlock,
  normaliseBlockedDomain,
  stricterThan,
} from '../../../federation/domain-blocks'
import type { DomainBlockRow, DomainBlockSeverity } from '../../../db/rows'
import { requirePermission } from '../../../users/roles'
import { logAction } from '../../../domain/action_log'

/** Mastodon's LIMIT for this endpoint (default page size; capped at twice that). */
const DEFAULT_LIMIT = 100

/** Mastodon's Admin::DomainBlock entity. */
export function domainBlockEntity(row: DomainBlockRow) {
  return {
    id: row.id,
    domain: row.domain,
    created_at: row.created_at.toISOString(),
    severity: row.severity,
    reject_media: row.reject_media,
    reject_reports: row.reject_reports,
    private_comment: row.private_comment,
    public_comment: row.public_comment,
    obfuscate: row.obfuscate,
  }
}

async function findDomainBlock(ctx: AccountsContext, id: unknown): Promise<DomainBlockRow> {
  const blockId = parseId(id)
  const row = blockId
    ? await ctx.db<DomainBlockRow>('domain_blocks').where({ id: blockId }).first()
    : undefined
  if (!row) throw recordNotFound()
  return row
}

const invalid = (message: string) => unprocessable(`Validation failed: ${message}`)

/** The settings a create or an update gives; on update only the given ones change. */
function readSettings(p: z.output<typeof adminDomainBlockParams>) {
  const changes: Partial<DomainBlockRow> = {}
  if (p.severity !== undefined && p.severity !== null && p.severity !== '') {
    if (!DOMAIN_BLOCK_SEVERITIES.includes(p.severity as DomainBlockSeverity))
      throw invalid('Severity is not included in the list')
    changes.severity = p.severity as DomainBlockSeverity
  }
  if (p.reject_media !== undefined) changes.reject_media = p.reject_media
  if (p.reject_reports !== undefined) changes.reject_reports = p.reject_reports
  if (p.obfuscate !== undefined) changes.obfuscate = p.obfuscate
  if (p.private_comment !== undefined) changes.private_comment = p.private_comment.trim() || null
  if (p.public_comment !== undefined) changes.public_comment = p.public_comment.trim() || null
  return changes
}

/** GET /api/v1/admin/domain_blocks — Mastodon's `manage_federation` (admins); newest first, keyset pages and Link. */
export async function listDomainBlocks(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const p = readParams(req, pageParams)
  const page = readPage(p, DEFAULT_LIMIT)
  const rows = await paginate<DomainBlockRow>(ctx.db('domain_blocks'), 'id', page)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-not-empty',
    prev: 'min_id',
    kept: { limit: paramText(p.limit) },
    path: '/api/v1/admin/domain_blocks',
  })
  res.json(rows.map(domainBlockEntity))
}

/** GET /api/v1/admin/domain_blocks/:id */
export async function showDomainBlock(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  res.json(domainBlockEntity(await findDomainBlock(ctx, req.params.id)))
}

/**
 * POST /api/v1/admin/domain_blocks — as Mastodon: a domain already blocked, or covered by a parent domain's block
 * that the new one is not stricter than, is a 422 naming that block (`existing_domain_block`); the block then takes effect on the
 * accounts of the domain in the same transaction.
 */
export async function createDomainBlock(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const p = readParams(req, adminDomainBlockParams)
  if (!p.domain?.trim()) throw invalid("Domain can't be blank")
  const domain = normaliseBlockedDomain(p.domain)
  if (!domain) throw invalid('Domain is not a valid domain name')
  const settings: Omit<DomainBlockRow, 'id' | 'created_at' | 'updated_at'> = {
    domain,
    severity: 'silence',
    reject_media: false,
    reject_reports: false,
    private_comment: null,
    public_comment: null,
    obfuscate: false,
    ...readSettings(p),
  }
  const row = await ctx.db.transaction(async (trx) => {
    const existing = await domainBlockFor(trx, domain)
    // Mastodon's conflicts_with_existing_block?: the same domain, or a parent's block the new one is not stricter than.
    if (existing && (existing.domain === domain || !stricterThan(settings, existing)))
      throw new HttpError(422, `You have already imposed stricter limits on ${existing.domain}.`, {
        existing_domain_block: domainBlockEntity(existing),
      })
    const [created] = await trx<DomainBlockRow>('domain_blocks')
      .insert(settings)
      .onConflict('domain')
      .ignore()
      .returning('*')
    if (!created) throw invalid('Domain has already been taken')
    await applyDomainBlock(trx, created)
    await logAction(trx, {
      accountId: staff.account.id,
      action: 'create',
      targetType: 'DomainBlock',
      targetId: String(created.id),
      humanIdentifier: created.domain,
    })
    return created
  })
  res.json(domainBlockEntity(row))
}

/** PUT /api/v1/admin/domain_blocks/:id — the domain stays; a changed severity is applied anew. */
export async function updateDomainBlock(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const existing = await findDomainBlock(ctx, req.params.id)
  const changes = readSettings(readParams(req, adminDomainBlockParams))
  const row = await ctx.db.transaction(async (trx) => {
    const [updated] = await trx<DomainBlockRow>('domain_blocks')
      .where({ id: existing.id })
      .update({ ...changes, updated_at: trx.fn.now() as unknown as Date })
      .returning('*')
    if (!updated) throw recordNotFound()
    await applyDomainBlock(trx, updated)
    await logAction(trx, {
      accountId: staff.account.id,
      action: 'update',
      targetType: 'DomainBlock',
      targetId: String(updated.id),
      humanIdentifier: updated.domain,
    })
    return updated
  })
  res.json(domainBlockEntity(row))
}

/** DELETE /api/v1/admin/domain_blocks/:id — lifts what the block did; answers `{}`, as Mastodon. */
export async function deleteDomainBlock(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const existing = await findDomainBlock(ctx, req.params.id)
  await ctx.db.transaction(async (trx) => {
    await trx('domain_blocks').where({ id: existing.id }).delete()
    await liftDomainBlock(trx, existing)
    await logAction(trx, {
      accountId: staff.account.id,
      action: 'destroy',
      targetType: 'DomainBlock',
      targetId: String(existing.id),
      humanIdentifier: existing.domain,
    })
  })
  res.json({})
}
