import type { Request } from 'express'
import type { Knex } from '@roost/db'
import { computedPermissions, hasPermission } from '@roost/routes'
import type { Permission } from '@roost/routes'
import { forbidden } from '@roost/service'
import type { AccountsContext } from '../context'
import type { RoleRow } from '../db/rows'
import type { CurrentUser } from './current'
import { requireUser } from './current'

/**
 * Roles and permissions, as Mastodon's UserRole (docs/moderation.md, "Roles and permissions"). `users.role` is a
 * role's `key` (migration 20261130040001_user_roles): `user` is Mastodon's "everyone" role, whose bits every user
 * holds; a role with `administrator` holds every bit.
 */

/** The "everyone" role's key and id (Mastodon's -99). */
export const EVERYONE = 'user'

export type { RoleRow }

/** A user's role with its effective bits (own | everyone's; all with `administrator`). */
export interface UserRole {
  role: RoleRow
  permissions: number
}

/** The role named by `key` (a user's `role`), with its effective permissions; an unknown key reads as everyone. */
export async function roleOf(db: Knex, key: string): Promise<UserRole> {
  const rows: RoleRow[] = await db('user_roles').whereIn('key', [EVERYONE, key])
  const everyone = rows.find((r) => r.key === EVERYONE)
  const own = rows.find((r) => r.key === key) ?? everyone
  if (!everyone || !own)
    throw new Error('The "everyone" role is missing (migration 20261130040001_user_roles)')
  return {
    role: own,
    permissions:
      own.key === EVERYONE
        ? Number(everyone.permissions)
        : computedPermissions(Number(own.permissions), Number(everyone.permissions)),
  }
}

export interface StaffUser extends CurrentUser {
  role: UserRole
}

/**
 * Admin routes: the signed-in user (requireUser) whose role holds the route's permission (`permission` in the
 * route table, packages/routes/src/table.ts); otherwise 403 "This action is not allowed", as Mastodon answers.
 */
export async function requirePermission(ctx: AccountsContext, req: Request): Promise<StaffUser> {
  const permission = req.apiRoute?.permission
  if (!permission) throw new Error(`${req.method} ${req.path} has no permission in the route table`)
  return requireRolePermission(ctx, req, permission)
}

/** As requirePermission, with a permission the handler chooses (an action needing more than its route). */
export async function requireRolePermission(
  ctx: AccountsContext,
  req: Request,
  permission: Permission,
): Promise<StaffUser> {
  const current = await requireUser(ctx, req)
  const role = await roleOf(ctx.db, current.user.role)
  if (!hasPermission(role.permissions, permission)) throw forbidden()
  return { ...current, role }
}

/** Mastodon's Role entity (docs: entities/Role): the permission bits as decimal text. */
export function renderRole(role: RoleRow) {
  return {
    id: String(role.id),
    name: role.name,
    permissions: String(role.permissions),
    color: role.color,
    highlighted: role.highlighted,
  }
}

export { roleKeysWith, staffRoleKeys } from '../domain/roles'

/** Whether `actor`'s role ranks above `target`'s (Mastodon's `overrides?`): only then may it act on its holder. */
export const overrides = (actor: RoleRow, target: Pick<RoleRow, 'position'> | undefined) =>
  !target || actor.position > target.position
