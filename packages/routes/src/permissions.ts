// The permission bits live in @roost/auth (domain code reads them too); the route table names them.
export {
  ALL_PERMISSIONS,
  computedPermissions,
  EVERYONE_PERMISSIONS,
  hasPermission,
  PERMISSION_FLAGS,
  permissionKeys,
  PERMISSIONS,
} from '@roost/auth'
export type { Permission } from '@roost/auth'
