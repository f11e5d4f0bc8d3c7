import type { Request, Response } from 'express'
import type { z } from 'zod'
import { listStatusesParams, postStatusParams, readParams, updateStatusParams } from '@roost/routes'
import { DEFAULT_STATUSES_LIMIT, forbidden, recordNotFound, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { parseId } from '../../../domain/records'
import type { CreatedStatus, NewStatus } from '../../../domain/statuses'
import { createStatus, deleteStatus, findVisibleStatus } from '../../../domain/statuses'
import { permittedStatuses } from '../../../domain/threads'
import { resolveMentions, withLocalMentions } from '../../../federation/mentions'
import { once } from '../../../domain/idempotency'
import type { AccountRow, ScheduledParams, ScheduledStatusRow, StatusRow } from '../../../db/rows'
import { automaticKeysOf, localQuotePolicy } from '../../../domain/quotes'
import { renderStatus, renderStatuses } from '../../../entities/status'
import { optionalUser, requireUser } from '../../../users/current'
import type { StatusEdit } from '../../../domain/edits'
import { editStatus } from '../../../domain/edits'
import { parseScheduledAt, scheduleStatus } from '../../../domain/scheduled_statuses'
import { renderScheduledStatus } from '../../../entities/scheduled_status'
import type { NewPoll } from '../../../domain/polls'
import type { Focus } from '../../../media/attachment'
import { parseFocus } from '../../../media/focus'

/** The `poll` parameter as the domain takes it; none, or one with nothing in it, means no poll (Rails' blank). */
export function pollOf(
  ctx: AccountsContext,
  poll: z.output<typeof postStatusParams>['poll'],
): NewPoll | undefined {
  if (!poll || Object.values(poll).every((v) => v === undefined)) return undefined
  return {
    options: poll.options ?? [],
    expiresIn: poll.expires_in,
    multiple: poll.multiple ?? false,
    hideTotals: poll.hide_totals ?? false,
    minExpiration: ctx.config.POLL_MIN_EXPIRATION_SECONDS,
  }
}

/** POST /api/v1/statuses */
export async function postStatus(ctx: AccountsContext, req: Request, res: Response) {
  const { user, account, application } = await requireUser(ctx, req)
  refuseMoved(account)
  const p = readParams(req, postStatusParams)
  if (p.quote_approval_policy !== undefined) automaticKeysOf(p.quote_approval_policy)
  const input: NewStatus = {
    text: p.status ?? '',
    spoilerText: p.spoiler_text ?? '',
    sensitive: p.sensitive ?? user.default_sensitive,
    visibility: p.visibility ?? user.default_privacy,
    language: p.language || user.default_language || null,
    inReplyToId: p.in_reply_to_id ? (parseId(p.in_reply_to_id) ?? '0') : undefined,
    mediaIds: p.media_ids ?? [],
    applicationId: application?.id ?? null,
    poll: pollOf(ctx, p.poll),
    quotedStatusId: p.quoted_status_id !== undefined ? (parseId(p.quoted_status_id) ?? '0') : undefined,
    quotePolicy: p.quote_approval_policy ?? user.default_quote_policy ?? 'public',
  }
  // `scheduled_at` ahead schedules the status (docs/statuses.md); one in the past posts it now, as in Mastodon.
  let scheduledAt: Date | undefined
  if (p.scheduled_at !== undefined) {
    scheduledAt = parseScheduledAt(p.scheduled_at)
    if (!scheduledAt) throw unprocessable('Record invalid')
    if (scheduledAt.getTime() <= Date.now()) scheduledAt = undefined
  }
  const urls = urlsOf(ctx.config)

  let created: { status: CreatedStatus['status']; entity: unknown } | undefined
  let scheduled: ScheduledStatusRow | undefined
  const create = async () => {
    // Remote mentions are resolved now, a scheduled status's too (docs/federation.md, "Mentions of remote accounts").
    input.text = await withLocalMentions(ctx.db, input.text, ctx.federation.localDomain)
    await resolveMentions(ctx.federation, input.text)
    if (scheduledAt) {
      const at = scheduledAt
      scheduled = await ctx.db.transaction((trx) =>
        scheduleStatus(
          trx,
          account,
          input,
          scheduledParams(p, input),
          at,
          ctx.config.SCHEDULED_STATUS_MIN_OFFSET_SECONDS,
        ),
      )
      return `${SCHEDULED}${scheduled.id}`
    }
    // Rendered before the commit: an answer that fails (Postgres gone) is a status that was not stored, never a 503
    // for a stored one that a client would post again.
    created = await ctx.db.transaction(async (trx) => {
      const made = await createStatus(trx, account, input)
      const facts = { ...made.facts, application: application ?? null }
      return {
        status: made.status,
        entity: await renderStatus(trx, urls, made.status, account.id, false, facts),
      }
    })
    return created.status.id
  }
  // A repeat of the same Idempotency-Key within an hour answers with what the first request made.
  const key = req.get('Idempotency-Key')
  const id = key
    ? await once(ctx.redis, `${ctx.config.REDIS_PREFIX}:idempotency:status:${account.id}`, key, create)
    : await create()
  if (id.startsWith(SCHEDULED)) {
    scheduled ??= await ctx
      .db('scheduled_statuses')
      .where({ id: id.slice(SCHEDULED.length), account_id: account.id })
      .first()
    // Published (or deleted) since the first request: gone, as Mastodon's `scheduled_statuses.find` says.
    if (!scheduled) throw recordNotFound()
    res.json(await renderScheduledStatus(ctx.db, urls, scheduled))
    return
  }
  if (created) {
    res.json(created.entity)
    return
  }
  res.json(await renderStatus(ctx.db, urls, await findVisibleStatus(ctx.db, id, account.id), account.id))
}

/**
 * A moved account keeps its posts but makes no new ones: Mastodon's `User#functional?` is false once the account
 * has moved, and its API answers 403 "Your login is currently disabled" (docs/federation.md, "Moved accounts").
 */
function refuseMoved(account: AccountRow) {
  if (account.moved_to_account_id) throw forbidden('Your login is currently disabled')
}

/** What an Idempotency-Key remembers of a scheduled status: its id behind this mark. */
const SCHEDULED = 'scheduled:'

/** The request as Mastodon keeps it in a ScheduledStatus's `params`: given values, null for the rest. */
function scheduledParams(p: z.output<typeof postStatusParams>, input: NewStatus): ScheduledParams {
  return {
    text: p.status ?? null,
    spoiler_text: p.spoiler_text ?? null,
    sensitive: p.sensitive ?? null,
    visibility: p.visibility ?? null,
    language: p.language ?? null,
    in_reply_to_id: input.inReplyToId ?? null,
    media_ids: p.media_ids ?? null,
    poll: input.poll
      ? {
          options: input.poll.options,
          expires_in: input.poll.expiresIn ?? null,
          multiple: input.poll.multiple,
          hide_totals: input.poll.hideTotals,
        }
      : null,
    application_id: input.applicationId ?? null,
    quoted_status_id: input.quotedStatusId ?? null,
    quote_approval_policy: p.quote_approval_policy ?? null,
    scheduled_at: null,
    idempotency: null,
    with_rate_limit: false,
  }
}

/**
 * GET /api/v1/statuses?id[]= — up to 20 statuses at once, newest first; those the viewer may not see (or whose
 * authors the viewer blocks or mutes) are left out, as in Mastodon.
 */
export async function listStatuses(ctx: AccountsContext, req: Request, res: Response) {
  const viewerId = (await optionalUser(ctx, req))?.account.id
  const ids = [...new Set(readParams(req, listStatusesParams).id ?? [])]
  if (ids.length > DEFAULT_STATUSES_LIMIT) throw unprocessable('Mastodon::ValidationError')
  const rows = await permittedStatuses(
    ctx.db,
    ids.flatMap((id) => parseId(id) ?? []),
    viewerId,
  )
  rows.sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1))
  res.json(await renderStatuses(ctx.db, urlsOf(ctx.config), rows, viewerId))
}

/** GET /api/v1/statuses/:id */
export async function getStatus(ctx: AccountsContext, req: Request, res: Response) {
  const viewer = await optionalUser(ctx, req)
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), viewer?.account.id)
  res.json(await renderStatus(ctx.db, urlsOf(ctx.config), status, viewer?.account.id))
}

/**
 * PUT /api/v1/statuses/:id — edits one's own status (Mastodon's UpdateStatusService, domain/edits.ts). As in
 * Mastodon the request is the whole new version: text, content warning, sensitivity and the attachments to keep
 * (`media_ids`, with new descriptions and focal points in `media_attributes[]`); the language stays when not given. Someone else's
 * status, or a boost, is 404.
 */
export async function updateStatus(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  refuseMoved(account)
  const id = parseId(req.params.id)
  const p = readParams(req, updateStatusParams)
  if (p.quote_approval_policy !== undefined) automaticKeysOf(p.quote_approval_policy)
  const descriptions = new Map<string, string | null>()
  const focuses = new Map<string, Focus>()
  for (const { id: mediaId, description, focus } of p.media_attributes ?? []) {
    if (mediaId && description !== undefined) descriptions.set(mediaId, description || null)
    const point = parseFocus(focus)
    if (mediaId && point) focuses.set(mediaId, point)
  }
  const edit: StatusEdit = {
    text: p.status ?? '',
    spoilerText: p.spoiler_text ?? '',
    sensitive: p.sensitive ?? false,
    language: p.language,
    mediaIds: p.media_ids ?? [],
    descriptions,
    focuses,
    poll: pollOf(ctx, p.poll),
  }
  edit.text = await withLocalMentions(ctx.db, edit.text, ctx.federation.localDomain)
  await resolveMentions(ctx.federation, edit.text)
  const { status } = await ctx.db.transaction(async (trx) => {
    const own: StatusRow | undefined = id
      ? await trx('statuses')
          .where({ id, account_id: account.id })
          .whereNull('reblog_of_id')
          .forUpdate()
          .first()
      : undefined
    if (!own) throw recordNotFound()
    // Mastodon 4.5 takes a new quote policy with an edit (docs/statuses.md, "Quotes"); it goes out with the Update.
    if (p.quote_approval_policy !== undefined)
      Object.assign(
        own,
        (
          await trx('statuses')
            .where({ id: own.id })
            .update(localQuotePolicy(own.visibility, p.quote_approval_policy, 'nobody'))
            .returning(['quote_automatic', 'quote_manual'])
        )[0],
      )
    return editStatus(trx, own, account.id, edit)
  })
  res.json(await renderStatus(ctx.db, urlsOf(ctx.config), status, account.id))
}

/** DELETE /api/v1/statuses/:id — answers with the deleted status and its source `text` (for redrafting). */
export async function deleteOwnStatus(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const status = await findVisibleStatus(ctx.db, parseId(req.params.id), account.id)
  if (status.account_id !== account.id) throw forbidden()
  const rendered = await renderStatus(ctx.db, urlsOf(ctx.config), status, account.id, true)
  await ctx.db.transaction((trx) => deleteStatus(trx, status))
  res.json(rendered)
}
