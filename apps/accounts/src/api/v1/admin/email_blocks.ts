import type { Request, Response } from 'express'
import type { Knex } from '@roost/db'
import { paginate } from '@roost/db'
import {
  adminCanonicalEmailBlockParams,
  adminCanonicalEmailTestParams,
  adminDomainParams,
  pageParams,
  readParams,
} from '@roost/routes'
import { paramText, readPage, recordNotFound, setPageLinks, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { logAction } from '../../../domain/action_log'
import { canonicalEmailHash } from '../../../domain/email_blocks'
import { parseId } from '../../../domain/records'
import { normaliseBlockedDomain } from '../../../federation/domain-blocks'
import { requirePermission } from '../../../users/roles'

/**
 * Mastodon's domain allows, e-mail domain blocks and canonical e-mail blocks (docs/moderation.md): three small
 * lists with the same shape of API — a page of entries (Link headers), one by id, a new one, a removal (`{}`).
 */

const invalid = (message: string) => unprocessable(`Validation failed: ${message}`)
const iso = (d: Date) => new Date(d).toISOString()

interface Row {
  id: string
  domain?: string
  canonical_email_hash?: string
  created_at: Date
}

interface List {
  table: string
  path: string
  targetType: string
  render: (row: Row) => object
  name: (row: Row) => string
}

const DOMAIN_ALLOWS: List = {
  table: 'domain_allows',
  path: '/api/v1/admin/domain_allows',
  targetType: 'DomainAllow',
  render: (r) => ({ id: String(r.id), domain: r.domain, created_at: iso(r.created_at) }),
  name: (r) => r.domain!,
}
// Mastodon's `history` counts sign-up attempts per day; Roost does not record them: none are shown.
const EMAIL_DOMAIN_BLOCKS: List = {
  table: 'email_domain_blocks',
  path: '/api/v1/admin/email_domain_blocks',
  targetType: 'EmailDomainBlock',
  render: (r) => ({ id: String(r.id), domain: r.domain, created_at: iso(r.created_at), history: [] }),
  name: (r) => r.domain!,
}
const CANONICAL_EMAIL_BLOCKS: List = {
  table: 'canonical_email_blocks',
  path: '/api/v1/admin/canonical_email_blocks',
  targetType: 'CanonicalEmailBlock',
  render: (r) => ({ id: String(r.id), canonical_email_hash: r.canonical_email_hash }),
  name: (r) => r.canonical_email_hash!,
}

const log = (trx: Knex, staffId: string, action: string, list: List, row: Row) =>
  logAction(trx, {
    accountId: staffId,
    action,
    targetType: list.targetType,
    targetId: String(row.id),
    humanIdentifier: list.name(row),
  })

async function find(ctx: AccountsContext, list: List, id: unknown): Promise<Row> {
  const rowId = parseId(id)
  const row = rowId ? await ctx.db<Row>(list.table).where({ id: rowId }).first() : undefined
  if (!row) throw recordNotFound()
  return row
}

const index = (list: List) => async (ctx: AccountsContext, req: Request, res: Response) => {
  await requirePermission(ctx, req)
  const p = readParams(req, pageParams)
  const page = readPage(p, 100)
  const rows = await paginate<Row>(ctx.db(list.table), 'id', page)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-full',
    prev: 'min_id',
    kept: { limit: paramText(p.limit) },
    path: list.path,
  })
  res.json(rows.map(list.render))
}

const show = (list: List) => async (ctx: AccountsContext, req: Request, res: Response) => {
  await requirePermission(ctx, req)
  res.json(list.render(await find(ctx, list, req.params.id)))
}

const destroy = (list: List) => async (ctx: AccountsContext, req: Request, res: Response) => {
  const staff = await requirePermission(ctx, req)
  const row = await find(ctx, list, req.params.id)
  await ctx.db.transaction(async (trx) => {
    await trx(list.table).where({ id: row.id }).delete()
    await log(trx, staff.account.id, 'destroy', list, row)
  })
  res.json({})
}

/** Inserts a row; a duplicate is Mastodon's 422, unless `existing` answers it (domain allows answer the one there). */
async function insert(ctx: AccountsContext, staffId: string, list: List, values: Record<string, string>) {
  return ctx.db.transaction(async (trx) => {
    const [row]: Row[] = await trx(list.table)
      .insert(values)
      .onConflict(Object.keys(values))
      .ignore()
      .returning('*')
    if (!row) return undefined
    await log(trx, staffId, 'create', list, row)
    return row
  })
}

const readDomain = (req: Request) => {
  const given = readParams(req, adminDomainParams).domain?.trim()
  if (!given) throw invalid("Domain can't be blank")
  const domain = normaliseBlockedDomain(given)
  if (!domain) throw invalid('Domain is not a valid domain name')
  return domain
}

export const listDomainAllows = index(DOMAIN_ALLOWS)
export const showDomainAllow = show(DOMAIN_ALLOWS)
export const deleteDomainAllow = destroy(DOMAIN_ALLOWS)
/** POST /api/v1/admin/domain_allows — an allowed domain already there is answered as it is, as Mastodon. */
export async function createDomainAllow(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const domain = readDomain(req)
  const row =
    (await insert(ctx, staff.account.id, DOMAIN_ALLOWS, { domain })) ??
    (await ctx.db<Row>('domain_allows').where({ domain }).first())!
  res.json(DOMAIN_ALLOWS.render(row))
}

export const listEmailDomainBlocks = index(EMAIL_DOMAIN_BLOCKS)
export const showEmailDomainBlock = show(EMAIL_DOMAIN_BLOCKS)
export const deleteEmailDomainBlock = destroy(EMAIL_DOMAIN_BLOCKS)
/** POST /api/v1/admin/email_domain_blocks — sign-ups at the domain and below it are refused from now on. */
export async function createEmailDomainBlock(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const row = await insert(ctx, staff.account.id, EMAIL_DOMAIN_BLOCKS, { domain: readDomain(req) })
  if (!row) throw invalid('Domain has already been taken')
  res.json(EMAIL_DOMAIN_BLOCKS.render(row))
}

export const listCanonicalEmailBlocks = index(CANONICAL_EMAIL_BLOCKS)
export const showCanonicalEmailBlock = show(CANONICAL_EMAIL_BLOCKS)
export const deleteCanonicalEmailBlock = destroy(CANONICAL_EMAIL_BLOCKS)

/** POST /api/v1/admin/canonical_email_blocks — `email` (its canonical form is hashed) or `canonical_email_hash`. */
export async function createCanonicalEmailBlock(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const p = readParams(req, adminCanonicalEmailBlockParams)
  const email = p.email?.trim()
  const given = p.canonical_email_hash?.trim().toLowerCase()
  let hash: string
  if (email) {
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw invalid('Email is invalid')
    hash = canonicalEmailHash(email)
  } else if (given) {
    if (!/^[0-9a-f]{64}$/.test(given)) throw invalid('Canonical email hash is invalid')
    hash = given
  } else throw invalid("Canonical email hash can't be blank")
  const row = await insert(ctx, staff.account.id, CANONICAL_EMAIL_BLOCKS, { canonical_email_hash: hash })
  if (!row) throw invalid('Canonical email hash has already been taken')
  res.json(CANONICAL_EMAIL_BLOCKS.render(row))
}

/** POST /api/v1/admin/canonical_email_blocks/test — the blocks that match `email` (an empty list: none). */
export async function testCanonicalEmailBlocks(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const email = readParams(req, adminCanonicalEmailTestParams).email?.trim()
  if (!email) throw invalid("Email can't be blank")
  const rows = await ctx
    .db<Row>('canonical_email_blocks')
    .where({ canonical_email_hash: canonicalEmailHash(email) })
  res.json(rows.map(CANONICAL_EMAIL_BLOCKS.render))
}
