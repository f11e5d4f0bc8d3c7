import { ROUTES } from '@roost/routes'

/**
 * The admin routes: those taking an `admin:*` scope. test/admin/permissions.test.ts checks each of them answers
 * 403 without its permission; test/web/admin-pages.test.ts checks every admin call of the web app is one of them.
 */
export const ADMIN_ROUTES = ROUTES.filter((r) => r.scopes.some((s) => s.startsWith('admin:')))
