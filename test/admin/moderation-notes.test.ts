import { PERMISSION_FLAGS } from '@roost/routes'
import { startStack } from '../stack'
import type { Stack } from '../stack'

/**
 * Moderation notes on accounts and reports (Roost's /api/v1/admin/accounts/:id/notes and
 * /api/v1/admin/reports/:id/notes; docs/moderation.md, "Moderation notes"), as Mastodon's AccountModerationNote
 * and ReportNote: staff with manage_reports write, list and delete them; the audit log records it.
 */
let stack: Stack
type Staff = { token: string; accountId: string }
let admin: Staff
let moderator: Staff
let otherModerator: Staff
let target: { accountId: string }
let reportId: string

const staff = async (role: string): Promise<Staff> => {
  const user = await stack.createUser({ role })
  return {
    token: await stack.userToken('read write admin:read admin:write', user),
    accountId: user.accountId,
  }
}
const as = (who: { token: string }) => ({
  get: (path: string) => stack.api().get(path).set('Authorization', `Bearer ${who.token}`),
  post: (path: string, body: object = {}) =>
    stack.api().post(path).set('Authorization', `Bearer ${who.token}`).send(body),
  delete: (path: string) => stack.api().delete(path).set('Authorization', `Bearer ${who.token}`),
})

beforeAll(async () => {
  stack = await startStack({ env: { RATE_LIMITS: 'off' } })
  admin = await staff('admin')
  moderator = await staff('moderator')
  otherModerator = await staff('moderator')
  const user = await stack.createUser()
  target = user
  const reporter = await stack.userToken('read write')
  const filed = await stack
    .api()
    .post('/api/v1/reports')
    .set('Authorization', `Bearer ${reporter}`)
    .send({ account_id: user.accountId, comment: 'spam, I think' })
    .expect(200)
  reportId = filed.body.id
})
afterAll(() => stack.stop())

describe.each([
  ['an account', () => `/api/v1/admin/accounts/${target.accountId}/notes`, 'AccountModerationNote'],
  ['a report', () => `/api/v1/admin/reports/${reportId}/notes`, 'ReportNote'],
])('notes on %s', (_subject, notesPath, model) => {
  it('are written, listed newest first with Link headers, and deleted by their author', async () => {
    const first = await as(moderator).post(notesPath(), { content: '  Warned twice already.  ' }).expect(200)
    expect(first.body).toEqual({
      id: expect.any(String),
      content: 'Warned twice already.',
      created_at: expect.any(String),
      account: expect.objectContaining({ id: moderator.accountId }),
    })
    const second = await as(admin).post(notesPath(), { content: 'Watching this one.' }).expect(200)

    const all = await as(moderator).get(notesPath()).expect(200)
    expect(all.body.map((n: { id: string }) => n.id)).toEqual([second.body.id, first.body.id])
    const page = await as(moderator).get(`${notesPath()}?limit=1`).expect(200)
    expect(page.body.map((n: { id: string }) => n.id)).toEqual([second.body.id])
    expect(page.headers.link).toContain(`${notesPath()}?limit=1&max_id=${second.body.id}>; rel="next"`)

    // The audit log names the note and its subject.
    const log = await as(admin)
      .get(`/api/v1/admin/action_logs?target_type=${model}&target_id=${first.body.id}`)
      .expect(200)
    expect(log.body).toEqual([
      expect.objectContaining({
        action: 'create',
        account: expect.objectContaining({ id: moderator.accountId }),
      }),
    ])

    await as(moderator).delete(`${notesPath()}/${first.body.id}`).expect(200, {})
    // Gone: deleting it again, or listing it, finds nothing.
    await as(moderator).delete(`${notesPath()}/${first.body.id}`).expect(404)
    expect((await as(moderator).get(notesPath()).expect(200)).body.map((n: { id: string }) => n.id)).toEqual([
      second.body.id,
    ])
    const destroyed = await as(admin)
      .get(`/api/v1/admin/action_logs?target_type=${model}&action=destroy&target_id=${first.body.id}`)
      .expect(200)
    expect(destroyed.body).toHaveLength(1)
    await as(admin).delete(`${notesPath()}/${second.body.id}`).expect(200)
  })

  it("may be deleted by a higher role than the author's, not by an equal one", async () => {
    const note = await as(moderator).post(notesPath(), { content: 'Mine.' }).expect(200)
    const refused = await as(otherModerator).delete(`${notesPath()}/${note.body.id}`).expect(403)
    expect(refused.body).toEqual({ error: 'This action is not allowed' })
    await as(admin).delete(`${notesPath()}/${note.body.id}`).expect(200)
    await as(moderator).get(notesPath()).expect(200, [])
  })

  it('refuses a blank or too long note with 422, an unknown subject or note with 404', async () => {
    const blank = await as(moderator).post(notesPath(), { content: '   ' }).expect(422)
    expect(blank.body).toEqual({ error: "Validation failed: Content can't be blank" })
    const missing = await as(moderator).post(notesPath(), {}).expect(422)
    expect(missing.body).toEqual({ error: "Validation failed: Content can't be blank" })
    const long = await as(moderator)
      .post(notesPath(), { content: 'x'.repeat(2001) })
      .expect(422)
    expect(long.body).toEqual({
      error: 'Validation failed: content is too long (maximum is 2000 characters)',
    })
    await as(moderator)
      .post(notesPath(), { content: 'x'.repeat(2000) })
      .expect(200)
    const unknown = notesPath().replace(/\/\d+\/notes$/, '/99999/notes')
    await as(moderator).get(unknown).expect(404, { error: 'Record not found' })
    await as(moderator).post(unknown, { content: 'hello' }).expect(404)
    await as(moderator).delete(`${notesPath()}/99999`).expect(404)
    await as(moderator).delete(`${notesPath()}/not-an-id`).expect(404)
  })

  it('are refused (403) to staff without manage_reports', async () => {
    const db = stack.accounts.ctx.db
    const [{ id }] = (await db.raw('SELECT snowflake_id()::text AS id')).rows
    await db('user_roles').insert({
      id,
      key: id,
      name: `users only ${model}`,
      permissions: PERMISSION_FLAGS.manage_users,
      position: 5,
    })
    const usersOnly = await staff(id)
    const note = await as(moderator).post(notesPath(), { content: 'Not for everyone.' }).expect(200)
    for (const res of [
      await as(usersOnly).get(notesPath()),
      await as(usersOnly).post(notesPath(), { content: 'hello' }),
      await as(usersOnly).delete(`${notesPath()}/${note.body.id}`),
    ])
      expect({ status: res.status, body: res.body }).toEqual({
        status: 403,
        body: { error: 'This action is not allowed' },
      })
  })
})
