import type { Request, Response } from 'express'
import { readParams, reblogParams } from '@roost/routes'
import type { HttpError } from '@roost/service'
import { notFound, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import * as favourites from '../../../domain/favourites'
import { parseId } from '../../../domain/records'
import { deleteStatus, findVisibleStatus, reblog } from '../../../domain/statuses'
import type { StatusRow } from '../../../db/rows'
import { renderStatus } from '../../../entities/status'
import * as outbox from '../../../outbox/outbox'
import { requireUser } from '../../../users/current'

/** Mastodon's StatusPinValidator limit. */
export const MAX_PINS = 5

/** The status the signed-in user acts on; a reblog stands for its original, as in Mastodon. */
async function target(ctx: AccountsContext, req: Request, missing?: () => HttpError) {
  const current = await requireUser(ctx, req)
  let status = await findVisibleStatus(ctx.db, parseId(req.params.id), current.account.id, missing)
  if (status.reblog_of_id)
    status = await findVisibleStatus(ctx.db, status.reblog_of_id, current.account.id, missing)
  return { ...current, status }
}

const answer = async (ctx: AccountsContext, res: Response, status: StatusRow, viewerId: string) =>
  res.json(await renderStatus(ctx.db, urlsOf(ctx.config), status, viewerId))

/** POST /api/v1/statuses/:id/favourite — idempotent; the author is notified the first time. */
export async function favourite(ctx: AccountsContext, req: Request, res: Response) {
  const { account, status } = await target(ctx, req)
  await ctx.db.transaction((trx) => favourites.favourite(trx, account.id, status))
  await answer(ctx, res, status, account.id)
}

/** POST /api/v1/statuses/:id/unfavourite */
export async function unfavourite(ctx: AccountsContext, req: Request, res: Response) {
  const { account, status } = await target(ctx, req)
  await ctx.db.transaction((trx) => favourites.unfavourite(trx, account.id, status))
  await answer(ctx, res, status, account.id)
}

/** POST /api/v1/statuses/:id/reblog — answers with the reblog, which embeds the original. */
export async function reblogStatus(ctx: AccountsContext, req: Request, res: Response) {
  const { account, status } = await target(ctx, req)
  const visibility = readParams(req, reblogParams).visibility ?? 'public'
  if (visibility === 'direct')
    throw unprocessable('Validation failed: Visibility is not included in the list')
  const row = await ctx.db.transaction((trx) => reblog(trx, account, status, visibility))
  await answer(ctx, res, row, account.id)
}

/** POST /api/v1/statuses/:id/unreblog — answers with the original. */
export async function unreblogStatus(ctx: AccountsContext, req: Request, res: Response) {
  const { account, status } = await target(ctx, req)
  const mine: StatusRow | undefined = await ctx
    .db('statuses')
    .where({ account_id: account.id, reblog_of_id: status.id })
    .first()
  if (mine) await ctx.db.transaction((trx) => deleteStatus(trx, mine))
  await answer(ctx, res, status, account.id)
}

/** POST /api/v1/statuses/:id/pin — own public or unlisted posts only. */
export async function pin(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), account.id)
  if (status.reblog_of_id) throw unprocessable('Validation failed: A boost cannot be pinned')
  if (status.account_id !== account.id)
    throw unprocessable("Validation failed: Someone else's post cannot be pinned")
  if (status.visibility !== 'public' && status.visibility !== 'unlisted')
    throw unprocessable('Validation failed: Only public and unlisted posts can be pinned')
  const pins = await ctx
    .db('status_pins')
    .where({ account_id: account.id })
    .whereNot({ status_id: status.id })
    .count('* as n')
  if (Number(pins[0]!.n) >= MAX_PINS)
    throw unprocessable('Validation failed: You have already pinned the maximum number of posts')
  await ctx.db.transaction(async (trx) => {
    const [row] = await trx('status_pins')
      .insert({ account_id: account.id, status_id: status.id })
      .onConflict(['account_id', 'status_id'])
      .ignore()
      .returning('id')
    // Other servers show pins too (docs/federation.md, "Pinned posts and featured hashtags").
    if (row) await outbox.add(trx, { event: 'status.pinned', statusId: status.id, accountId: account.id })
  })
  await answer(ctx, res, status, account.id)
}

/** POST /api/v1/statuses/:id/unpin */
export async function unpin(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), account.id)
  await ctx.db.transaction(async (trx) => {
    const removed = await trx('status_pins').where({ account_id: account.id, status_id: status.id }).delete()
    if (removed)
      await outbox.add(trx, { event: 'status.unpinned', statusId: status.id, accountId: account.id })
  })
  await answer(ctx, res, status, account.id)
}

/** POST /api/v1/statuses/:id/bookmark — idempotent. */
export async function bookmark(ctx: AccountsContext, req: Request, res: Response) {
  const { account, status } = await target(ctx, req, notFound)
  await ctx
    .db('bookmarks')
    .insert({ account_id: account.id, status_id: status.id })
    .onConflict(['account_id', 'status_id'])
    .ignore()
  await answer(ctx, res, status, account.id)
}

/** POST /api/v1/statuses/:id/unbookmark — also for a bookmarked status the user can no longer see. */
export async function unbookmark(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const id = parseId(req.params.id)
  const bookmarked: StatusRow | undefined = id
    ? await ctx
        .db('bookmarks')
        .join('statuses', 'statuses.id', 'bookmarks.status_id')
        .where({ 'bookmarks.account_id': account.id, 'bookmarks.status_id': id })
        .first('statuses.*')
    : undefined
  const status = bookmarked ?? (await target(ctx, req, notFound)).status
  await ctx.db('bookmarks').where({ account_id: account.id, status_id: status.id }).delete()
  await answer(ctx, res, status, account.id)
}

/**
 * POST /api/v1/statuses/:id/mute — mutes the status's thread: notifications about its statuses stop
 * (domain/notifications). Mastodon does not check that the user took part in it.
 */
export async function muteConversation(ctx: AccountsContext, req: Request, res: Response) {
  const { account, status } = await target(ctx, req, notFound)
  if (!status.conversation_id) throw unprocessable('Mastodon::ValidationError')
  await ctx
    .db('conversation_mutes')
    .insert({ account_id: account.id, conversation_id: status.conversation_id })
    .onConflict(['account_id', 'conversation_id'])
    .ignore()
  await answer(ctx, res, status, account.id)
}

/** POST /api/v1/statuses/:id/unmute */
export async function unmuteConversation(ctx: AccountsContext, req: Request, res: Response) {
  const { account, status } = await target(ctx, req, notFound)
  if (!status.conversation_id) throw unprocessable('Mastodon::ValidationError')
  await ctx
    .db('conversation_mutes')
    .where({ account_id: account.id, conversation_id: status.conversation_id })
    .delete()
  await answer(ctx, res, status, account.id)
}
