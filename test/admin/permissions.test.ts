import { readFileSync } from 'node:fs'
import path from 'node:path'
import { ALL_PERMISSIONS, PERMISSION_FLAGS } from '@roost/routes'
import type { Permission, Route } from '@roost/routes'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { ADMIN_ROUTES } from './admin-routes'

/**
 * Every admin route answers 403 "This action is not allowed" to a user whose role lacks the route's permission,
 * whatever else the role holds, and lets through one holding that permission alone (docs/moderation.md, "Roles and
 * permissions"). Table-driven over the route table's admin routes, one user per permission.
 */
let stack: Stack
beforeAll(async () => {
  stack = await startStack({ env: { RATE_LIMITS: 'off' } })
})
afterAll(() => stack.stop())

const byPermission = new Map<Permission, Route[]>()
for (const r of ADMIN_ROUTES) byPermission.set(r.permission!, [...(byPermission.get(r.permission!) ?? []), r])

/** A user holding a custom role of exactly these bits, and an admin-scoped token of theirs. */
async function holderOf(name: string, bits: number) {
  const db = stack.accounts.ctx.db
  const [{ id }] = (await db.raw('SELECT snowflake_id()::text AS id')).rows
  await db('user_roles').insert({ id, key: id, name, permissions: bits, position: 5 })
  const user = await stack.createUser({ role: id })
  return stack.userToken('read admin:read admin:write', user)
}

const call = (route: Route, token: string) => {
  const url = route.path.replace(/:\w+/g, '99999') // nothing has this id: past the check, a 404
  const req = stack.api()[route.method.toLowerCase() as 'get'](url).set('Authorization', `Bearer ${token}`)
  return route.method === 'GET' ? req : req.send({})
}

it('every admin route names the permission it needs', () => {
  expect(ADMIN_ROUTES.filter((r) => !r.permission).map((r) => `${r.method} ${r.path}`)).toEqual([])
  expect(ADMIN_ROUTES.length).toBeGreaterThan(40)
})

it("docs/moderation.md's table lists every admin route with its permission", () => {
  const doc = readFileSync(path.join(__dirname, '..', '..', 'docs', 'moderation.md'), 'utf8')
  const documented = [
    ...doc.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \|[^|]*\| `(\w+)` \|/gm),
  ].map((m) => `${m[1]} ${m[2]} ${m[3]}`)
  expect(documented.sort()).toEqual(ADMIN_ROUTES.map((r) => `${r.method} ${r.path} ${r.permission}`).sort())
})

it.each([...byPermission.keys()])(
  'without %s: 403 on its routes; with it alone: let through',
  async (permission) => {
    const bit = PERMISSION_FLAGS[permission]
    const without = await holderOf(
      `without ${permission}`,
      ALL_PERMISSIONS & ~bit & ~PERMISSION_FLAGS.administrator,
    )
    const only = await holderOf(`only ${permission}`, bit)
    for (const route of byPermission.get(permission)!) {
      const refused = await call(route, without)
      expect({ route: `${route.method} ${route.path}`, status: refused.status, body: refused.body }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 403,
        body: { error: 'This action is not allowed' },
      })
      const allowed = await call(route, only)
      expect({ route: `${route.method} ${route.path}`, refused: allowed.status === 403 }).toEqual({
        route: `${route.method} ${route.path}`,
        refused: false,
      })
    }
  },
)
