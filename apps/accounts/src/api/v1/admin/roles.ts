import type { Request, Response } from 'express'
import {
  adminAssignRoleParams,
  adminRoleParams,
  EVERYONE_PERMISSIONS,
  PERMISSION_FLAGS,
  readParams,
} from '@roost/routes'
import type { Permission } from '@roost/routes'
import type { z } from 'zod'
import { forbidden, recordNotFound, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import type { RoleRow } from '../../../db/rows'
import { logAction } from '../../../domain/action_log'
import { parseId } from '../../../domain/records'
import { EVERYONE, overrides, renderRole, requirePermission } from '../../../users/roles'
import type { StaffUser } from '../../../users/roles'
import { adminAccounts, renderAdminAccount } from './accounts'

/**
 * Roles (Roost additions: Mastodon manages them on its web pages only; docs/moderation.md, "Roles and
 * permissions"), with Mastodon's rules: a role can only grant bits it holds itself, only place roles below its
 * own position, not change its own bits or position, and only edit, delete or assign roles ranked below it; the
 * "everyone" role (id -99) keeps its empty name and may only hold `invite_users`.
 */

const invalid = (message: string) => unprocessable(`Validation failed: ${message}`)

/** The admin view of a role: Mastodon's Role entity with its position and the permission names. */
function renderAdminRole(role: RoleRow) {
  const bits = Number(role.permissions)
  return {
    ...renderRole(role),
    position: role.position,
    permissions_as_keys: (Object.keys(PERMISSION_FLAGS) as Permission[]).filter(
      (p) => (bits & PERMISSION_FLAGS[p]) === PERMISSION_FLAGS[p],
    ),
    created_at: new Date(role.created_at).toISOString(),
    updated_at: new Date(role.updated_at).toISOString(),
  }
}

async function findRole(ctx: AccountsContext, id: unknown): Promise<RoleRow> {
  const raw = typeof id === 'string' ? id : ''
  const roleId = raw === '-99' ? raw : parseId(raw)
  const row = roleId ? await ctx.db<RoleRow>('user_roles').where({ id: roleId }).first() : undefined
  if (!row) throw recordNotFound()
  return row
}

/** The bits asked for: `permissions` (decimal text of the bit set) or `permissions_as_keys[]` (names). */
function readPermissions(p: z.output<typeof adminRoleParams>): number | undefined {
  if (p.permissions !== undefined && p.permissions !== null && p.permissions !== '') {
    const text = String(p.permissions)
    if (!/^\d{1,10}$/.test(text)) throw invalid('Permissions is not a number')
    const bits = Number(text)
    const all = Object.values(PERMISSION_FLAGS).reduce((a, b) => a | b, 0)
    if ((bits & ~all) !== 0) throw invalid('Permissions names an unknown permission')
    return bits
  }
  if (p.permissions_as_keys === undefined) return undefined
  let bits = 0
  for (const key of p.permissions_as_keys) {
    if (key === '') continue
    if (!Object.hasOwn(PERMISSION_FLAGS, key))
      throw invalid(`Permissions as keys has an unknown permission: ${key}`)
    bits |= PERMISSION_FLAGS[key as Permission]
  }
  return bits
}

/** The changes asked for, checked against the acting role (Mastodon's UserRole validations). */
function readRoleChanges(staff: StaffUser, p: z.output<typeof adminRoleParams>, existing?: RoleRow) {
  const changes: Partial<Record<keyof RoleRow, unknown>> = {}
  const everyone = existing?.key === EVERYONE
  const own = existing?.key === staff.role.role.key
  if (p.name !== undefined || !existing) {
    const name = p.name?.trim() ?? ''
    if (everyone) {
      if (name) throw invalid('Name cannot be given to the base role')
    } else if (!name) throw invalid("Name can't be blank")
    else changes.name = name
  }
  if (p.color !== undefined) {
    const color = p.color.trim()
    if (color && !/^#?(?:[A-F0-9]{3}){1,2}$/i.test(color)) throw invalid('Color is invalid')
    changes.color = color
  }
  if (p.highlighted !== undefined) changes.highlighted = p.highlighted
  const bits = readPermissions(p)
  if (bits !== undefined && bits !== Number(existing?.permissions ?? -1)) {
    if (own) throw invalid('Permissions cannot be changed with your current role')
    if ((staff.role.permissions & bits) !== bits)
      throw invalid('Permissions cannot include permissions your current role does not have')
    if (everyone && (bits & ~EVERYONE_PERMISSIONS) !== 0)
      throw invalid('Permissions cannot include permissions that are not safe for the base role')
    changes.permissions = bits
  }
  if (p.position !== undefined && !everyone && p.position !== existing?.position) {
    if (own) throw invalid('Position cannot be changed with your current role')
    if (p.position >= staff.role.role.position)
      throw invalid('Position cannot be higher than your current role')
    if (Math.abs(p.position) > 2 ** 31 - 1) throw invalid('Position is out of range')
    changes.position = p.position
  }
  return changes
}

/** GET /api/v1/admin/roles — every role, the highest first (the "everyone" role last). */
export async function listRoles(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const rows = await ctx.db<RoleRow>('user_roles').orderBy([
    { column: 'position', order: 'desc' },
    { column: 'id', order: 'asc' },
  ])
  res.json(rows.map(renderAdminRole))
}

/** GET /api/v1/admin/roles/:id */
export async function showRole(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  res.json(renderAdminRole(await findRole(ctx, req.params.id)))
}

/** POST /api/v1/admin/roles — a custom role, below the creator's (its position defaults to 0). */
export async function createRole(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const p = readParams(req, adminRoleParams)
  const changes = readRoleChanges(staff, { ...p, position: p.position ?? 0 })
  const row = await ctx.db.transaction(async (trx) => {
    const [{ id }] = (await trx.raw('SELECT snowflake_id()::text AS id')).rows as { id: string }[]
    const [created] = await trx<RoleRow>('user_roles')
      .insert({ position: 0, permissions: '0', ...changes, id, key: id } as Partial<RoleRow>)
      .returning('*')
    await logAction(trx, {
      accountId: staff.account.id,
      action: 'create',
      targetType: 'UserRole',
      targetId: id,
      humanIdentifier: created!.name,
    })
    return created!
  })
  res.json(renderAdminRole(row))
}

/** PUT /api/v1/admin/roles/:id — a role ranked below the caller's, or the caller's own (not its bits or rank). */
export async function updateRole(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const existing = await findRole(ctx, req.params.id)
  if (existing.key !== staff.role.role.key && !overrides(staff.role.role, existing)) throw forbidden()
  const changes = readRoleChanges(staff, readParams(req, adminRoleParams), existing)
  const row = await ctx.db.transaction(async (trx) => {
    const [updated]: RoleRow[] = await trx('user_roles')
      .where({ id: existing.id })
      .update({ ...changes, updated_at: trx.fn.now() })
      .returning('*')
    await logAction(trx, {
      accountId: staff.account.id,
      action: 'update',
      targetType: 'UserRole',
      targetId: String(existing.id),
      humanIdentifier: updated!.name || existing.name,
      details: changes,
    })
    return updated!
  })
  res.json(renderAdminRole(row))
}

/** DELETE /api/v1/admin/roles/:id — its holders fall back to the "everyone" role; answers `{}`. */
export async function deleteRole(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const existing = await findRole(ctx, req.params.id)
  if (
    existing.key === EVERYONE ||
    existing.key === staff.role.role.key ||
    !overrides(staff.role.role, existing)
  )
    throw forbidden()
  await ctx.db.transaction(async (trx) => {
    await trx('user_roles').where({ id: existing.id }).delete()
    await logAction(trx, {
      accountId: staff.account.id,
      action: 'destroy',
      targetType: 'UserRole',
      targetId: String(existing.id),
      humanIdentifier: existing.name,
    })
  })
  // Its holders' tokens keep their admin scopes, but every admin call checks the role again (users/roles.ts).
  res.json({})
}

/**
 * POST /api/v1/admin/accounts/:id/role — gives a local user a role (`role_id`; blank or -99: none), as Mastodon's
 * change_role: both the user's present role and the new one must rank below the caller's, and not oneself.
 */
export async function assignRole(ctx: AccountsContext, req: Request, res: Response) {
  const staff = await requirePermission(ctx, req)
  const accountId = parseId(req.params.id)
  const target = accountId ? await adminAccounts(ctx.db).where('accounts.id', accountId).first() : undefined
  if (!target) throw recordNotFound()
  const { role_id } = readParams(req, adminAssignRoleParams)
  const role = role_id && role_id !== '-99' ? await findRoleOr422(ctx, role_id) : undefined
  if (target.id === staff.account.id || !overrides(staff.role.role, target.role_row ?? undefined))
    throw forbidden()
  if (role && !overrides(staff.role.role, role)) throw forbidden()
  await ctx.db.transaction(async (trx) => {
    await trx('users')
      .where({ account_id: target.id })
      .update({ role: role?.key ?? EVERYONE })
    await logAction(trx, {
      accountId: staff.account.id,
      action: 'change_role',
      targetType: 'User',
      targetId: String(target.user_id),
      humanIdentifier: target.username,
      details: { from: target.role_row?.name ?? '', to: role?.name ?? '' },
    })
  })
  const row = await adminAccounts(ctx.db).where('accounts.id', target.id).first()
  res.json(renderAdminAccount(row!, ctx))
}

async function findRoleOr422(ctx: AccountsContext, id: string) {
  try {
    return await findRole(ctx, id)
  } catch {
    throw invalid('Role does not exist')
  }
}
