import type { Request, Response } from 'express'
import type { Knex } from '@roost/db'
import { paginate } from '@roost/db'
import { accountActionParams, adminAccountsParams, adminAccountsV2Params, readParams } from '@roost/routes'
import type { AccountAction } from '@roost/routes'
import { badRequest, forbidden, readPage, recordNotFound, setPageLinks, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { parseId } from '../../../domain/records'
import type { AdminAccountRow } from '../../../db/rows'
import { renderAccount, roleEntity, urlsOf } from '../../../entities/account'
import { escapeLike } from '../../../queries/sql'
import { overrides, renderRole, requirePermission, staffRoleKeys } from '../../../users/roles'
import { roleBadgeSql } from '../../../queries/accounts'
import {
  approveUser,
  disableUser,
  rejectUser,
  silenceAccount,
  suspendAccount,
  unsubscribeFromPush,
  unsuspendAccount,
} from '../../../domain/moderation'
import { publishLoginState } from '../../../users/login-state'
import { recordWarning } from '../../../domain/account_warnings'
import { logAction } from '../../../domain/action_log'
import { requestAccountDeletion } from '../../../domain/deletion'
import { adminEvent } from '../../../domain/webhooks'

const ADMIN_ACCOUNTS_LIMIT = 100

export const adminAccounts = (db: Knex) =>
  db('accounts')
    .join('users', 'users.account_id', 'accounts.id')
    .select(
      'accounts.*',
      'users.id as user_id',
      'users.email',
      'users.locale',
      'users.role',
      'users.sign_up_reason',
      'users.confirmed_at',
      'users.approved',
      'users.disabled',
      'users.created_by_application_id',
      db.raw(roleBadgeSql),
      db.raw(
        `(SELECT to_jsonb(r) || jsonb_build_object('id', r.id::text, 'permissions', r.permissions::text)
            FROM user_roles r WHERE r.key = users.role) AS role_row`,
      ),
    )

async function findAdminAccount(ctx: AccountsContext, id: unknown): Promise<AdminAccountRow> {
  const accountId = parseId(id)
  const row = accountId ? await adminAccounts(ctx.db).where('accounts.id', accountId).first() : undefined
  if (!row) throw recordNotFound()
  return row
}

/** Admin::Account (docs: entities/Admin_Account); Roost keeps no sign-up IPs, so `ip` is null and `ips` empty. */
export function renderAdminAccount(row: AdminAccountRow, ctx: Pick<AccountsContext, 'config'>) {
  return {
    id: row.id,
    username: row.username,
    domain: null,
    created_at: row.created_at.toISOString(),
    email: row.email,
    ip: null,
    ips: [],
    locale: row.locale,
    invite_request: row.sign_up_reason,
    role: row.role_row ? renderRole(row.role_row) : roleEntity(row.role),
    confirmed: !!row.confirmed_at,
    approved: row.approved,
    disabled: row.disabled,
    silenced: !!row.silenced_at,
    suspended: !!row.suspended_at,
    sensitized: !!row.sensitized_at,
    account: renderAccount(row, urlsOf(ctx.config)),
    created_by_application_id: row.created_by_application_id,
    invited_by_account_id: null,
  }
}

// v1's boolean filters, and v2's `status=` spelling of the same states (accepted here too).
const STATUS_FILTERS: Record<string, (q: Knex.QueryBuilder) => void> = {
  pending: (q) => q.where('users.approved', false),
  active: (q) => q.where('users.approved', true).whereNull('accounts.suspended_at'),
  suspended: (q) => q.whereNotNull('accounts.suspended_at'),
  silenced: (q) => q.whereNotNull('accounts.silenced_at'),
  disabled: (q) => q.where('users.disabled', true),
}

/** GET /api/v1/admin/accounts — filters pending/active/suspended/silenced/disabled, username, email, staff. */
export async function listAdminAccounts(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const p = readParams(req, adminAccountsParams)
  const page = readPage(p, ADMIN_ACCOUNTS_LIMIT)
  const query = adminAccounts(ctx.db)
  for (const [name, filter] of Object.entries(STATUS_FILTERS))
    if (p[name as 'pending'] === true || p.status === name) filter(query)
  if (p.status && !STATUS_FILTERS[p.status]) query.whereRaw('false')
  // There are no remote accounts: `remote=true` is empty, `local=true` is everyone.
  if (p.remote) query.whereRaw('false')
  if (p.staff) query.whereIn('users.role', staffRoleKeys(ctx.db))
  if (p.username) query.whereRaw('lower(accounts.username) like lower(?)', [`${escapeLike(p.username)}%`])
  if (p.email) query.whereRaw('lower(users.email) like lower(?)', [`%${escapeLike(p.email)}%`])

  const rows = await paginate<AdminAccountRow>(query, 'accounts.id', page)
  const kept: Record<string, string> = {}
  for (const [key, value] of Object.entries(p))
    if (value !== undefined && !key.endsWith('_id')) kept[key] = String(value)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-full',
    prev: 'min_id',
    kept,
    path: '/api/v1/admin/accounts',
  })
  res.json(rows.map((row) => renderAdminAccount(row, ctx)))
}

/**
 * GET /api/v2/admin/accounts — Mastodon's AccountFilter: `origin` (local|remote), `status`
 * (active|pending|disabled|silenced|suspended), `permissions=staff`, `role_ids[]`, `username` and `display_name`
 * (prefixes), `email` (a part), `by_domain`, `invited_by`, `ip`; paging with Link as v1. Every account is local, Roost
 * records no sign-up IPs and has no invites: `origin=remote`, `by_domain`, `invited_by` and `ip` find nothing.
 */
export async function listAdminAccountsV2(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const p = readParams(req, adminAccountsV2Params)
  const page = readPage(p, ADMIN_ACCOUNTS_LIMIT)
  const query = adminAccounts(ctx.db)
  if (p.origin !== undefined && !['local', 'remote'].includes(p.origin))
    throw badRequest(`Unknown origin: ${p.origin}`)
  if (p.origin === 'remote') query.whereRaw('false')
  if (p.status !== undefined) {
    const filter = STATUS_FILTERS[p.status]
    if (!filter) throw badRequest(`Unknown status: ${p.status}`)
    filter(query)
  }
  if (p.permissions !== undefined) {
    if (p.permissions !== 'staff') throw badRequest(`Unknown permissions: ${p.permissions}`)
    query.whereIn('users.role', staffRoleKeys(ctx.db))
  }
  if (p.role_ids?.length) {
    const ids = p.role_ids.filter((id) => /^-?\d{1,19}$/.test(id))
    query.whereIn('users.role', ctx.db('user_roles').whereIn('id', ids).select('key'))
  }
  if (p.username) query.whereRaw('lower(accounts.username) like lower(?)', [`${escapeLike(p.username)}%`])
  if (p.display_name)
    query.whereRaw('lower(accounts.display_name) like lower(?)', [`${escapeLike(p.display_name)}%`])
  if (p.email) query.whereRaw('lower(users.email) like lower(?)', [`%${escapeLike(p.email)}%`])
  if (p.by_domain || p.invited_by || p.ip) query.whereRaw('false')

  const rows = await paginate<AdminAccountRow>(query, 'accounts.id', page)
  const kept: Record<string, string | string[]> = {}
  for (const [key, value] of Object.entries(p))
    if (value !== undefined && !key.endsWith('_id')) kept[key] = Array.isArray(value) ? value : String(value)
  setPageLinks(req, res, ctx.config.PUBLIC_URL, rows, {
    limit: page.limit,
    cursor: (row) => row.id,
    next: 'when-full',
    prev: 'min_id',
    kept,
    path: '/api/v2/admin/accounts',
  })
  res.json(rows.map((row) => renderAdminAccount(row, ctx)))
}

/** GET /api/v1/admin/accounts/:id */
export async function showAdminAccount(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  res.json(renderAdminAccount(await findAdminAccount(ctx, req.params.id), ctx))
}

/** The audit log's line for an action on an account (docs/moderation.md, "Audit log"). */
const logAccountAction = (trx: Knex, staffId: string, action: string, row: AdminAccountRow) =>
  logAction(trx, {
    accountId: staffId,
    action,
    targetType: 'Account',
    targetId: String(row.id),
    humanIdentifier: row.domain ? `${row.username}@${row.domain}` : row.username,
  })

/** POST /api/v1/admin/accounts/:id/approve — only pending sign-ups (else 403, Mastodon's policy). */
export async function approveAccount(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const row = await findAdminAccount(ctx, req.params.id)
  const approved = await ctx.db.transaction(async (trx) => {
    const done = await approveUser(trx, row.id)
    if (done) {
      await logAccountAction(trx, staff.account.id, 'approve', row)
      await adminEvent(trx, 'account.approved', row.id)
    }
    return done
  })
  await publishLoginState(ctx, row.id)
  if (!approved) throw forbidden()
  res.json(renderAdminAccount(await findAdminAccount(ctx, row.id), ctx))
}

/** POST /api/v1/admin/accounts/:id/reject — deletes a pending sign-up; answers it as it was. */
export async function rejectAccount(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const row = await findAdminAccount(ctx, req.params.id)
  if (row.approved) throw forbidden()
  // The sign-up's token (from POST /api/v1/accounts) stops working too: rejectUser publishes it as revoked.
  const rejected = await ctx.db.transaction(async (trx) => {
    const done = await rejectUser(trx, ctx.revocations, row.id)
    if (done) await logAccountAction(trx, staff.account.id, 'reject', row)
    return done
  })
  if (!rejected) throw forbidden()
  res.json(renderAdminAccount(row, ctx))
}

const ACTIONS: Record<AccountAction, (trx: Knex, ctx: AccountsContext, id: string) => Promise<void>> = {
  none: async () => {},
  sensitive: async (trx, _ctx, id) => {
    await trx('accounts').where({ id }).update({ sensitized_at: trx.fn.now() })
  },
  silence: (trx, _ctx, id) => silenceAccount(trx, id),
  suspend: (trx, ctx, id) => suspendAccount(trx, ctx.revocations, id),
  disable: (trx, _ctx, id) => disableUser(trx, id),
}

/** Mastodon's log verbs of the account actions (`none` is a warning). */
const ACTION_VERBS: Record<AccountAction, string> = {
  none: 'warn',
  sensitive: 'sensitive',
  silence: 'silence',
  suspend: 'suspend',
  disable: 'disable',
}

/**
 * POST /api/v1/admin/accounts/:id/action — Mastodon's Admin::AccountAction: `type` = none | sensitive | silence |
 * suspend | disable, an optional `text` (the warning), `report_id` (a report on the account, resolved by it; any
 * action but `none` resolves all the account's open reports) and `send_email_notification` (the warning is mailed
 * to the user, UserMailer#warning). Only on a holder of a role ranked below the caller's, never oneself.
 */
export async function accountAction(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const row = await findAdminAccount(ctx, req.params.id)
  const { type, text, send_email_notification, report_id } = readParams(req, accountActionParams)
  const action =
    typeof type === 'string' && Object.hasOwn(ACTIONS, type) ? ACTIONS[type as AccountAction] : undefined
  if (!action) throw unprocessable('Validation failed: Type is not included in the list')
  if (row.id === staff.account.id || !overrides(staff.role.role, row.role_row ?? undefined)) throw forbidden()
  let report: { id: string } | undefined
  if (report_id !== undefined && report_id !== '') {
    const reportId = parseId(report_id)
    report = reportId
      ? await ctx.db('reports').where({ id: reportId, target_account_id: row.id }).first('id')
      : undefined
    if (!report) throw recordNotFound()
  }
  await ctx.db.transaction(async (trx) => {
    await action(trx, ctx, row.id)
    await logAccountAction(trx, staff.account.id, ACTION_VERBS[type as AccountAction], row)
    // As Mastodon's Admin::AccountAction#warnable?: a warning (and its mail) only when asked for, to a local user.
    if (send_email_notification && !row.domain)
      await recordWarning(trx, {
        moderatorAccountId: staff.account.id,
        targetAccountId: row.id,
        action: type as AccountAction,
        text: text ?? '',
      })
    // Mastodon's process_reports!: the report given, or for a real action every open report on the account.
    const reports = trx('reports').whereNull('action_taken_at')
    if (type === 'none') reports.where({ id: report?.id ?? '0' })
    else reports.where({ target_account_id: row.id })
    const resolved: { id: string }[] = await reports
      .update({
        action_taken_at: trx.fn.now(),
        action_taken_by_account_id: staff.account.id,
        updated_at: trx.fn.now(),
      })
      .returning('id')
    for (const r of resolved) {
      await logAction(trx, {
        accountId: staff.account.id,
        action: 'resolve',
        targetType: 'Report',
        targetId: String(r.id),
        humanIdentifier: `#${r.id}`,
      })
      await adminEvent(trx, 'report.updated', String(r.id))
    }
  })
  // Once committed: push hears of a suspension or a disabled login only when it has happened.
  await publishLoginState(ctx, row.id)
  res.json({})
}

/** The undo actions: each applies when the state is on (else 403, as Mastodon's policies), logs its verb. */
function undoAction(
  verb: string,
  applies: (row: AdminAccountRow) => boolean,
  undo: (trx: Knex, id: string) => Promise<unknown>,
) {
  return async (ctx: AccountsContext, req: Request, res: Response) => {
    const staff = await requirePermission(ctx, req)
    const row = await findAdminAccount(ctx, req.params.id)
    if (!applies(row)) throw forbidden()
    await ctx.db.transaction(async (trx) => {
      await undo(trx, row.id)
      await logAccountAction(trx, staff.account.id, verb, row)
    })
    await publishLoginState(ctx, row.id)
    res.json(renderAdminAccount(await findAdminAccount(ctx, row.id), ctx))
  }
}

/** POST /api/v1/admin/accounts/:id/unsuspend */
export const unsuspend = undoAction(
  'unsuspend',
  (row) => !!row.suspended_at && !row.deleted_at,
  (trx, id) => unsuspendAccount(trx, id),
)
/** POST /api/v1/admin/accounts/:id/enable — a disabled login works again. */
export const enableAccount = undoAction(
  'enable',
  () => true,
  (trx, id) => trx('users').where({ account_id: id }).update({ disabled: false }),
)
/** POST /api/v1/admin/accounts/:id/unsilence */
export const unsilenceAccount = undoAction(
  'unsilence',
  () => true,
  (trx, id) => trx('accounts').where({ id }).update({ silenced_at: null }),
)
/** POST /api/v1/admin/accounts/:id/unsensitive */
export const unsensitiveAccount = undoAction(
  'unsensitive',
  () => true,
  (trx, id) => trx('accounts').where({ id }).update({ sensitized_at: null }),
)

/**
 * POST /api/v1/admin/accounts/:id/unsubscribe_push — a Roost addition: every push subscription of a local account
 * goes (docs/moderation.md, "Unsubscribing from push"). A remote account has none here: 422.
 */
export async function unsubscribePush(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const accountId = parseId(req.params.id)
  const account = accountId ? await ctx.db('accounts').where({ id: accountId }).first('domain') : undefined
  if (!account) throw recordNotFound()
  if (account.domain) throw unprocessable('A remote account has no push subscriptions on this server')
  const row = await findAdminAccount(ctx, accountId)
  await ctx.db.transaction(async (trx) => {
    await unsubscribeFromPush(trx, row.id)
    await logAccountAction(trx, staff.account.id, 'unsubscribe_push', row)
  })
  res.json(renderAdminAccount(row, ctx))
}

/**
 * DELETE /api/v1/admin/accounts/:id — Mastodon's: the data of a suspended account is deleted for good (the
 * worker removes it, as when a user leaves: docs/security.md, "Leaving"); an account not suspended is a 403.
 * Needs `delete_user_data`.
 */
export async function deleteAdminAccount(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const row = await findAdminAccount(ctx, req.params.id)
  if (!row.suspended_at || row.deleted_at || row.id === staff.account.id) throw forbidden()
  await ctx.db.transaction(async (trx) => {
    await requestAccountDeletion(trx, ctx.revocations, row.id)
    await logAccountAction(trx, staff.account.id, 'destroy', row)
  })
  res.json(renderAdminAccount(row, ctx))
}
