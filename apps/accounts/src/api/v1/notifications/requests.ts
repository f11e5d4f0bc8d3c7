import type { Request, Response } from 'express'
import { paginate } from '@roost/db'
import {
  notificationPolicyParams,
  notificationPolicyV1Params,
  notificationRequestsBulkParams,
  pageParams,
  readParams,
} from '@roost/routes'
import { DEFAULT_ACCOUNTS_LIMIT, paramText, readPage, recordNotFound, setPageLinks } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { urlsOf } from '../../../entities/account'
import { renderNotificationRequests } from '../../../entities/notification_request'
import { parseId } from '../../../domain/records'
import type { Policy, RequestRow } from '../../../domain/notification_policies'
import {
  acceptRequests,
  dismissRequests,
  pendingSummary,
  POLICY_FIELDS,
  policyOf,
  updatePolicy,
} from '../../../domain/notification_policies'
import { requireUser } from '../../../users/current'

/** Notification policy and requests (docs/discovery.md, "Notification policy and requests"). */

async function renderPolicy(ctx: AccountsContext, accountId: string, policy: Policy) {
  return { ...policy, summary: await pendingSummary(ctx.db, accountId) }
}

/** GET /api/v2/notifications/policy */
export async function getNotificationPolicy(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  res.json(await renderPolicy(ctx, account.id, await policyOf(ctx.db, account.id)))
}

/** PATCH /api/v2/notifications/policy — the fields given change; 422 on a value other than accept/filter/drop. */
export async function updateNotificationPolicy(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, notificationPolicyParams)
  const changes: Partial<Policy> = {}
  for (const field of POLICY_FIELDS) if (p[field] !== undefined) changes[field] = p[field]
  const policy = await ctx.db.transaction((trx) => updatePolicy(trx, account.id, changes))
  res.json(await renderPolicy(ctx, account.id, policy))
}

/** Mastodon's v1 shape: `filter_…` true unless the field accepts (`drop` is shown as filtering). */
function renderPolicyV1(policy: Policy, summary: Awaited<ReturnType<typeof pendingSummary>>) {
  return {
    filter_not_following: policy.for_not_following !== 'accept',
    filter_not_followers: policy.for_not_followers !== 'accept',
    filter_new_accounts: policy.for_new_accounts !== 'accept',
    filter_private_mentions: policy.for_private_mentions !== 'accept',
    summary,
  }
}

/** GET /api/v1/notifications/policy (deprecated by Mastodon, still served) */
export async function getNotificationPolicyV1(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  res.json(renderPolicyV1(await policyOf(ctx.db, account.id), await pendingSummary(ctx.db, account.id)))
}

/** PATCH /api/v1/notifications/policy — `filter_…` booleans: true sets `filter`, false `accept`. */
export async function updateNotificationPolicyV1(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, notificationPolicyV1Params)
  const changes: Partial<Policy> = {}
  for (const field of ['not_following', 'not_followers', 'new_accounts', 'private_mentions'] as const) {
    const value = p[`filter_${field}`]
    if (value !== undefined) changes[`for_${field}`] = value ? 'filter' : 'accept'
  }
  const policy = await ctx.db.transaction((trx) => updatePolicy(trx, account.id, changes))
  res.json(renderPolicyV1(policy, await pendingSummary(ctx.db, account.id)))
}

/** The user's requests, from senders who are not suspended. */
function requestsOf(ctx: AccountsContext, accountId: string) {
  return ctx
    .db('notification_requests')
    .join('accounts', 'accounts.id', 'notification_requests.from_account_id')
    .where('notification_requests.account_id', accountId)
    .whereNull('accounts.suspended_at')
    .select('notification_requests.*')
}

/** GET /api/v1/notifications/requests — 40/80 a page, newest first; Link next `max_id`, prev `min_id` when non-empty. */
export async function listNotificationRequests(ctx: AccountsContext, req: Request, res: Response) {
  const { account } = await requireUser(ctx, req)
  const p = readParams(req, pageParams)
  const page = readPage(p, DEFAULT_ACCOUNTS_LIMIT)
  const rows = await paginate<RequestRow>(requestsOf(ctx, account.id), 'notification_requests.id', page)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-not-empty',
    prev: 'min_id',
    kept: { limit: paramText(p.limit) },
  })
  res.json(await renderNotificationRequests(ctx.db, urlsOf(ctx.config), rows, account.id))
}

async function ownRequest(ctx: AccountsContext, req: Request) {
  const { account } = await requireUser(ctx, req)
  const id = parseId(req.params.id)
  const row: RequestRow | undefined = id
    ? await requestsOf(ctx, account.id).where('notification_requests.id', id).first()
    : undefined
  if (!row) throw recordNotFound()
  return { account, row }
}

/** GET /api/v1/notifications/requests/:id */
export async function getNotificationRequest(ctx: AccountsContext, req: Request, res: Response) {
  const { account, row } = await ownRequest(ctx, req)
  const [rendered] = await renderNotificationRequests(ctx.db, urlsOf(ctx.config), [row], account.id)
  res.json(rendered)
}

/** Accepts requests at once, then streams the changed conversations and `notifications_merged`. */
async function accept(ctx: AccountsContext, accountId: string, rows: RequestRow[]) {
  const changed = await ctx.db.transaction((trx) => acceptRequests(trx, accountId, rows))
  await ctx.streaming.conversations(changed)
  await ctx.streaming.notificationsMerged(accountId)
}

/** POST /api/v1/notifications/requests/:id/accept — `{}` */
export async function acceptNotificationRequest(ctx: AccountsContext, req: Request, res: Response) {
  const { account, row } = await ownRequest(ctx, req)
  await accept(ctx, account.id, [row])
  res.json({})
}

/** POST /api/v1/notifications/requests/:id/dismiss — `{}` */
export async function dismissNotificationRequest(ctx: AccountsContext, req: Request, res: Response) {
  const { account, row } = await ownRequest(ctx, req)
  await ctx.db.transaction((trx) => dismissRequests(trx, account.id, [row]))
  res.json({})
}

async function bulk(ctx: AccountsContext, req: Request) {
  const { account } = await requireUser(ctx, req)
  const ids = (readParams(req, notificationRequestsBulkParams).id ?? [])
    .map((id) => parseId(id))
    .filter((id): id is string => id !== undefined)
  const rows: RequestRow[] = ids.length
    ? await ctx
        .db('notification_requests')
        .where('account_id', account.id)
        .whereIn('id', [...new Set(ids)])
    : []
  return { account, rows }
}

/** POST /api/v1/notifications/requests/accept — `id[]`; `{}` */
export async function acceptNotificationRequests(ctx: AccountsContext, req: Request, res: Response) {
  const { account, rows } = await bulk(ctx, req)
  if (rows.length) await accept(ctx, account.id, rows)
  res.json({})
}

/** POST /api/v1/notifications/requests/dismiss — `id[]`; `{}` */
export async function dismissNotificationRequests(ctx: AccountsContext, req: Request, res: Response) {
  const { account, rows } = await bulk(ctx, req)
  await ctx.db.transaction((trx) => dismissRequests(trx, account.id, rows))
  res.json({})
}

/** GET /api/v1/notifications/requests/merged — `{merged: true}`: Roost merges accepted requests at once. */
export async function notificationRequestsMerged(ctx: AccountsContext, req: Request, res: Response) {
  await requireUser(ctx, req)
  res.json({ merged: true })
}
