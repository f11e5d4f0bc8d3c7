import type { Request, Response } from 'express'
import { DEFAULT_STATUSES_LIMIT, forbidden, params, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { parseId } from '../../../domain/records'
import type { Visibility } from '../../../domain/statuses'
import { createStatus, deleteStatus, findVisibleStatus, VISIBILITIES } from '../../../domain/statuses'
import { permittedStatuses } from '../../../domain/threads'
import { renderStatus, renderStatuses } from '../../../entities/status'
import { optionalUser, requireUser } from '../../../users/current'
import { optionalBoolean, optionalString, stringArray } from '../input'

export function readVisibility(value: string | undefined, fallback: Visibility): Visibility {
  if (value === undefined || value === '') return fallback
  if (!(VISIBILITIES as readonly string[]).includes(value))
    throw unprocessable('Validation failed: Visibility is not included in the list')
  return value as Visibility
}

/** POST /api/v1/statuses */
export async function postStatus(ctx: AccountsContext, req: Request, res: Response) {
  const { user, account } = await requireUser(ctx, req)
  // The posting defaults of the user's preferences (users.default_*).
  const defaults = user as typeof user & {
    default_privacy: Visibility
    default_sensitive: boolean
    default_language: string | null
  }
  const p = params(req)
  const mediaIds = stringArray(p, 'media_ids')
  const inReplyTo = optionalString(p, 'in_reply_to_id')
  const language = optionalString(p, 'language', 8)
  const status = await ctx.db.transaction((trx) =>
    createStatus(ctx, trx, account, {
      text: optionalString(p, 'status', 10_000) ?? '',
      spoilerText: optionalString(p, 'spoiler_text', 10_000) ?? '',
      sensitive: optionalBoolean(p, 'sensitive') ?? defaults.default_sensitive,
      visibility: readVisibility(optionalString(p, 'visibility'), defaults.default_privacy),
      language: language || defaults.default_language || null,
      inReplyToId: inReplyTo ? (parseId(inReplyTo) ?? '0') : undefined,
      mediaIds,
    }),
  )
  ctx.outbox.wake()
  res.json(await renderStatus(ctx.db, urlsOf(ctx.config.PUBLIC_URL), status, account.id))
}

/**
 * GET /api/v1/statuses?id[]= — up to 20 statuses at once, newest first; those the viewer may not see (or whose
 * authors the viewer blocks or mutes) are left out, as in Mastodon.
 */
export async function listStatuses(ctx: AccountsContext, req: Request, res: Response) {
  const viewerId = (await optionalUser(ctx, req))?.account.id
  const ids = [...new Set(stringArray(params(req), 'id'))]
  if (ids.length > DEFAULT_STATUSES_LIMIT) throw unprocessable('Mastodon::ValidationError')
  const rows = await permittedStatuses(
    ctx.db,
    ids.flatMap((id) => parseId(id) ?? []),
    viewerId,
  )
  rows.sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
  res.json(await renderStatuses(ctx.db, urlsOf(ctx.config.PUBLIC_URL), rows, viewerId))
}

/** GET /api/v1/statuses/:id */
export async function getStatus(ctx: AccountsContext, req: Request, res: Response) {
  const viewer = await optionalUser(ctx, req)
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), viewer?.account.id)
  res.json(await renderStatus(ctx.db, urlsOf(ctx.config.PUBLIC_URL), status, viewer?.account.id))
}

/** DELETE /api/v1/statuses/:id — answers with the deleted status and its source `text` (for redrafting). */
export async function deleteOwnStatus(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), account.id)
  if (status.account_id !== account.id) throw forbidden()
  const rendered = await renderStatus(ctx.db, urlsOf(ctx.config.PUBLIC_URL), status, account.id, true)
  await ctx.db.transaction((trx) => deleteStatus(trx, status))
  res.json(rendered)
}
