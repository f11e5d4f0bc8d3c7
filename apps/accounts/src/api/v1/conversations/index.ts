import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import { pageParams, readParams } from '@roost/routes'
import { DEFAULT_STATUSES_LIMIT, paramText, readPage, recordNotFound, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { renderConversations } from '../../../entities/conversation'
import type { AccountConversationRow } from '../../../db/rows'
import { parseId } from '../../../domain/records'
import { requireUser } from '../../../users/current'

/**
 * GET /api/v1/conversations — the user's direct-message conversations (docs/statuses.md, "Conversations"), paged
 * by their last status's id, newest first (Mastodon's AccountConversation.to_a_paginated_by_id); Link next
 * `max_id` when the page is full, prev `min_id` when it is not empty, both in last-status ids.
 */
export async function listConversations(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, pageParams)
  const page = readPage(p, DEFAULT_STATUSES_LIMIT)
  const rows = await paginate<AccountConversationRow>(
    ctx.db('account_conversations').where({ account_id: account.id }).whereNotNull('last_status_id'),
    'last_status_id',
    page,
  )
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.last_status_id!,
    next: 'when-full',
    prev: 'min_id',
    kept: { limit: paramText(p.limit) },
  })
  res.json(await renderConversations(ctx.db, urlsOf(ctx.config), rows, account.id))
}

/** One of the user's conversations, else 404 "Record not found". */
async function own(ctx: AccountsContext, req: Request) {
  const { account } = await requireUser(ctx, req)
  const id = parseId(req.params.id)
  const row: AccountConversationRow | undefined = id
    ? await ctx.db('account_conversations').where({ id, account_id: account.id }).first()
    : undefined
  if (!row) throw recordNotFound()
  return { account, row }
}

/**
 * POST /api/v1/conversations/:id/read — marks it read; answers the Conversation, which is also streamed to the
 * owner's `direct` stream (as Mastodon's after_commit does), so the owner's other apps see it read.
 */
export async function readConversation(ctx: AccountsContext, req: Request, res: Response) {
  const { account, row } = await own(ctx, req)
  const [updated]: AccountConversationRow[] = await ctx
    .db('account_conversations')
    .where({ id: row.id })
    .update({ unread: false })
    .returning('*')
  // Deleted meanwhile: gone.
  if (!updated) throw recordNotFound()
  const [rendered] = await renderConversations(ctx.db, urlsOf(ctx.config), [updated], account.id)
  await ctx.streaming.conversations([String(updated.id)])
  res.json(rendered)
}

/**
 * DELETE /api/v1/conversations/:id — removes it from the list (`{}`); the statuses stay, and a new direct status in
 * the thread starts it again.
 */
export async function deleteConversation(ctx: AccountsContext, req: Request, res: Response) {
  const { row } = await own(ctx, req)
  await ctx.db('account_conversations').where({ id: row.id }).delete()
  res.json({})
}
