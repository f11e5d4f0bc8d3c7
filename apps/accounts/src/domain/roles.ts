import type { Knex } from '@roost/db'
import { PERMISSION_FLAGS } from '@roost/auth'
import type { Permission } from '@roost/auth'

/**
 * Which roles hold a permission, as SQL subqueries of role keys (docs/moderation.md, "Roles and permissions"): a
 * role's bits with the "everyone" role's, `administrator` holding them all.
 */

const EVERYONE_BITS_SQL = `(SELECT e.permissions FROM user_roles e WHERE e.key = 'user')`

/** The keys of the roles holding `permission` (e.g. who hears of a new report: manage_reports). */
export const roleKeysWith = (db: Knex, permission: Permission) =>
  db('user_roles')
    .whereRaw(`(permissions & 1) = 1 OR ((permissions | ${EVERYONE_BITS_SQL}) & ?) = ?`, [
      PERMISSION_FLAGS[permission],
      PERMISSION_FLAGS[permission],
    ])
    .select('key')

/** The keys of the staff roles: holding a bit beyond everyone's (Mastodon's `permissions=staff`). */
export const staffRoleKeys = (db: Knex) =>
  db('user_roles')
    .whereNot('key', 'user')
    .whereRaw(`(permissions & ~${EVERYONE_BITS_SQL}) <> 0`)
    .select('key')
