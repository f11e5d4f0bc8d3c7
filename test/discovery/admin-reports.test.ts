import { startStack } from '../stack'
import type { Stack } from '../stack'
import { createdId, links, onStack, post, roost, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
let moderator: TestUser
let admin: TestUser
const ADMIN = 'read write follow admin:read admin:write'
beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice', scope: ADMIN })
  bob = await signUp(stack, { username: 'bob' })
  // Admin scopes go to a token only once its user has the role: a new token after the role is given.
  const staff = async (username: string, role: 'moderator' | 'admin', scope: string) => {
    const user = await signUp(stack, { username })
    expect((await roost(stack, 'accounts', 'role', username, role)).code).toBe(0)
    const auth = `Bearer ${await stack.userToken(scope, user)}`
    return {
      ...user,
      get: (path: string) => stack.api().get(path).set('Authorization', auth),
      post: (path: string) => stack.api().post(path).set('Authorization', auth),
    } as TestUser
  }
  moderator = await staff('mod', 'moderator', 'read write admin:read:reports admin:write:reports')
  admin = await staff('boss', 'admin', ADMIN)
})
afterAll(() => stack.stop())

type AdminReport = {
  id: string
  action_taken: boolean
  account: { id: string; username: string; email: string; account: { id: string } }
  target_account: { id: string }
  assigned_account: { id: string } | null
  action_taken_by_account: { id: string } | null
  statuses: { id: string }[]
  rules: { id: string; text: string }[]
}

describe('/api/v1/admin/reports', () => {
  it('lists, shows, assigns, resolves and reopens reports, for moderators and admins only', async () => {
    const rule = createdId((await roost(stack, 'rules', 'add', 'No spam')).stdout)
    const spam = await post(bob, 'buy now')
    const first = (
      await alice
        .post('/api/v1/reports', {
          account_id: bob.id,
          status_ids: [spam],
          comment: 'spam',
          rule_ids: [rule],
        })
        .expect(200)
    ).body.id as string
    const second = (await alice.post('/api/v1/reports', { account_id: bob.id, comment: 'again' }).expect(200))
      .body.id as string

    const list = await moderator.get('/api/v1/admin/reports').expect(200)
    expect(list.body.map((r: AdminReport) => r.id)).toEqual([second, first])
    const shown = (await moderator.get(`/api/v1/admin/reports/${first}`).expect(200)).body as AdminReport
    expect(shown).toMatchObject({
      id: first,
      action_taken: false,
      category: 'violation',
      comment: 'spam',
      account: { id: alice.id, username: 'alice', account: { id: alice.id } },
      target_account: { id: bob.id },
      assigned_account: null,
      action_taken_by_account: null,
      statuses: [{ id: spam }],
      rules: [{ id: rule, text: 'No spam' }],
    })
    expect(shown.account.email).toContain('@')

    const paged = await admin.get('/api/v1/admin/reports?limit=1').expect(200)
    expect(paged.body.map((r: AdminReport) => r.id)).toEqual([second])
    const next = (await admin.get(onStack(stack, links(paged.headers.link).next!)).expect(200)).body
    expect(next.map((r: AdminReport) => r.id)).toEqual([first])
    expect((await admin.get(`/api/v1/admin/reports?target_account_id=${alice.id}`).expect(200)).body).toEqual(
      [],
    )

    const assigned = (await moderator.post(`/api/v1/admin/reports/${first}/assign_to_self`).expect(200))
      .body as AdminReport
    expect(assigned.assigned_account!.id).toBe(moderator.id)
    expect(
      ((await moderator.post(`/api/v1/admin/reports/${first}/unassign`).expect(200)).body as AdminReport)
        .assigned_account,
    ).toBeNull()

    const resolved = (await admin.post(`/api/v1/admin/reports/${first}/resolve`).expect(200))
      .body as AdminReport
    expect(resolved).toMatchObject({ action_taken: true, action_taken_by_account: { id: admin.id } })
    expect((await admin.get('/api/v1/admin/reports').expect(200)).body.map((r: AdminReport) => r.id)).toEqual(
      [second],
    )
    expect(
      (await admin.get('/api/v1/admin/reports?resolved=true').expect(200)).body.map((r: AdminReport) => r.id),
    ).toEqual([first])
    const reopened = (await admin.post(`/api/v1/admin/reports/${first}/reopen`).expect(200))
      .body as AdminReport
    expect(reopened).toMatchObject({ action_taken: false, action_taken_by_account: null })

    // A user without the role is refused even with admin scopes; a token without them too.
    await alice.get('/api/v1/admin/reports').expect(403)
    await bob
      .get('/api/v1/admin/reports')
      .expect(403, { error: 'This action is outside the authorized scopes' })
    await moderator.get('/api/v1/admin/reports/999999').expect(404, { error: 'Record not found' })
    await moderator.post('/api/v1/admin/reports/abc/resolve').expect(404)
  })
})
