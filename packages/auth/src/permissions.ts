/**
 * Mastodon's UserRole permission bits (app/models/user_role.rb, same names and values), which Roost's roles are
 * made of (docs/moderation.md, "Roles and permissions"). A role's `permissions` is their bitwise or; a role with
 * `administrator` holds them all; every user also holds those of the "everyone" role (id -99).
 */
export const PERMISSION_FLAGS = {
  administrator: 1 << 0,
  view_devops: 1 << 1,
  view_audit_log: 1 << 2,
  view_dashboard: 1 << 3,
  manage_reports: 1 << 4,
  manage_federation: 1 << 5,
  manage_settings: 1 << 6,
  manage_blocks: 1 << 7,
  manage_taxonomies: 1 << 8,
  manage_appeals: 1 << 9,
  manage_users: 1 << 10,
  manage_invites: 1 << 11,
  manage_rules: 1 << 12,
  manage_announcements: 1 << 13,
  manage_custom_emojis: 1 << 14,
  manage_webhooks: 1 << 15,
  invite_users: 1 << 16,
  manage_roles: 1 << 17,
  manage_user_access: 1 << 18,
  delete_user_data: 1 << 19,
} as const

export type Permission = keyof typeof PERMISSION_FLAGS

export const PERMISSIONS = Object.keys(PERMISSION_FLAGS) as Permission[]

/** Every bit (Mastodon's Flags::ALL). */
export const ALL_PERMISSIONS = Object.values(PERMISSION_FLAGS).reduce((a, b) => a | b, 0)

/** What the "everyone" role may hold (Mastodon's Flags::DEFAULT). */
export const EVERYONE_PERMISSIONS = PERMISSION_FLAGS.invite_users

/** A role's effective bits: with those of "everyone"; `administrator` means all (Mastodon's computed_permissions). */
export function computedPermissions(own: number, everyone: number): number {
  const bits = own | everyone
  return bits & PERMISSION_FLAGS.administrator ? ALL_PERMISSIONS : bits
}

export const hasPermission = (bits: number, permission: Permission) =>
  (bits & PERMISSION_FLAGS[permission]) === PERMISSION_FLAGS[permission]

/** The names of the bits set (Mastodon's permissions_as_keys). */
export const permissionKeys = (bits: number): Permission[] =>
  PERMISSIONS.filter((p) => hasPermission(bits, p))
