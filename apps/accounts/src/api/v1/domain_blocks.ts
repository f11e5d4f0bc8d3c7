import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { domainBlockParams, domainBlocksParams, readParams } from '@roost/routes'
import { paramText, readPage, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../context'
import { blockDomain, unblockDomain } from '../../domain/account_extras'
import { requireUser } from '../../users/current'

/**
 * GET /api/v1/domain_blocks — the user's blocked domains as strings, newest first, paged by the block (limit
 * 100/200; Link next `max_id` when full, prev `since_id`). Every account is local until federation lands, so a
 * block hides nothing yet (docs/discovery.md).
 */
export async function listDomainBlocks(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, domainBlocksParams)
  const page = readPage(p, 100)
  const rows = await paginate<{ id: string; domain: string }>(
    ctx.db('account_domain_blocks').where({ account_id: account.id }).select('id', 'domain'),
    'id',
    page,
  )
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-full',
    prev: 'since_id',
    kept: { limit: paramText(p.limit) },
  })
  res.json(rows.map((r) => r.domain))
}

/** POST /api/v1/domain_blocks — `domain`; `{}`. */
export async function createDomainBlock(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const { domain } = readParams(req, domainBlockParams)
  await ctx.db.transaction((trx) => blockDomain(trx, account.id, domain))
  res.json({})
}

/** DELETE /api/v1/domain_blocks — `domain`; `{}`, also when there was no such block. */
export async function deleteDomainBlock(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const { domain } = readParams(req, domainBlockParams)
  await unblockDomain(ctx.db, account.id, domain)
  res.json({})
}
