import type { Request, Response } from 'express'
import { interactionPolicyParams, readParams, statusQuotesParams } from '@roost/routes'
import { paginate } from '@roost/db'
import { DEFAULT_STATUSES_LIMIT, paramText, readPage, setPageLinks } from '@roost/service'
import { Invalid, NotFound } from '@roost/errors'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { parseId } from '../../../domain/records'
import { findVisibleStatus, visibleTo } from '../../../domain/statuses'
import { localQuotePolicy, revokeQuote } from '../../../domain/quotes'
import type { StatusRow } from '../../../db/rows'
import { renderStatus, renderStatuses } from '../../../entities/status'
import { requireUser } from '../../../users/current'

/**
 * Quotes of a status (docs/statuses.md, "Quotes"), as Mastodon 4.5's Api::V1::Statuses::QuotesController and
 * InteractionPoliciesController.
 */

/**
 * GET /api/v1/statuses/:id/quotes — the accepted quotes of a status the viewer can see, newest quote first, paged by
 * the quote's id; those the viewer may not see are left out (after the page is cut, as in Mastodon).
 */
export async function statusQuotes(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), account.id)
  const p = readParams(req, statusQuotesParams)
  const page = readPage(p, DEFAULT_STATUSES_LIMIT)
  const quotes = await paginate<{ id: string; status_id: string }>(
    ctx.db('quotes').where({ quoted_status_id: status.id, state: 'accepted' }).select('id', 'status_id'),
    'id',
    page,
  )
  setPageLinks(req, res, ctx.config.PUBLIC_URL, quotes, {
    limit: page.limit,
    cursor: (q) => q.id,
    next: 'when-full',
    prev: 'since_id',
    kept: { limit: paramText(p.limit) },
  })
  const visible: StatusRow[] = quotes.length
    ? await visibleTo(
        ctx.db,
        ctx.db('statuses').whereIn(
          'statuses.id',
          quotes.map((q) => q.status_id),
        ),
        account.id,
      ).select('statuses.*')
    : []
  const rows = quotes.flatMap((q) => visible.find((s) => s.id === q.status_id) ?? [])
  res.json(await renderStatuses(ctx.db, urlsOf(ctx.config), rows, account.id))
}

/** POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke — answers the quoting status as the viewer sees it. */
export async function revokeStatusQuote(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), account.id)
  const quote = await ctx.db.transaction((trx) =>
    revokeQuote(trx, account, status, parseId(req.params.quoting_status_id)),
  )
  const quoting: StatusRow | undefined = await ctx.db('statuses').where({ id: quote.status_id }).first()
  if (!quoting) throw new NotFound()
  res.json(await renderStatus(ctx.db, urlsOf(ctx.config), quoting, account.id))
}

/**
 * PUT /api/v1/statuses/:id/interaction_policy — the author changes who may quote the post. Not federated yet: the
 * new policy goes out with the Note's next Update (docs/statuses.md, "Quotes").
 */
export async function updateInteractionPolicy(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, interactionPolicyParams)
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), account.id)
  if (status.account_id !== account.id || status.reblog_of_id) throw new NotFound()
  if (p.quote_approval_policy === undefined) throw new Invalid('Record invalid')
  const policy = localQuotePolicy(status.visibility, p.quote_approval_policy, 'nobody')
  const [row]: StatusRow[] = await ctx.db('statuses').where({ id: status.id }).update(policy).returning('*')
  res.json(await renderStatus(ctx.db, urlsOf(ctx.config), row!, account.id))
}
