import { startStack } from '../stack'
import type { Stack } from '../stack'
import { createdId, post, roost, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
let moderator: TestUser
let admin: TestUser
beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
  const staff = async (username: string, role: 'moderator' | 'admin') => {
    const user = await signUp(stack, { username })
    expect((await roost(stack, 'accounts', 'role', username, role)).code).toBe(0)
    return user
  }
  moderator = await staff('mod', 'moderator')
  admin = await staff('boss', 'admin')
})
afterAll(() => stack.stop())

describe('POST /api/v1/reports', () => {
  it('files a report and tells every moderator and admin with an admin.report notification', async () => {
    const rule = createdId((await roost(stack, 'rules', 'add', 'No spam')).stdout)
    const spam = await post(bob, 'buy now')
    const res = await alice
      .post('/api/v1/reports', { account_id: bob.id, status_ids: [spam], comment: 'spam', rule_ids: [rule] })
      .expect(200)
    expect(res.body).toEqual({
      id: expect.any(String),
      action_taken: false,
      action_taken_at: null,
      category: 'violation',
      comment: 'spam',
      forwarded: false,
      created_at: expect.any(String),
      status_ids: [spam],
      rule_ids: [rule],
      target_account: expect.objectContaining({ id: bob.id, username: 'bob' }),
    })
    await stack.drain()
    for (const staff of [moderator, admin]) {
      const list = (await staff.get('/api/v1/notifications?types[]=admin.report').expect(200)).body
      expect(list).toHaveLength(1)
      expect(list[0]).toMatchObject({
        type: 'admin.report',
        account: { id: alice.id },
        report: { id: res.body.id, category: 'violation', target_account: { id: bob.id } },
      })
    }
    expect((await bob.get('/api/v1/notifications').expect(200)).body).toEqual([])
    expect((await alice.get('/api/v1/notifications').expect(200)).body).toEqual([])
  })

  it('defaults to `other` without rules, and keeps rules only for a violation', async () => {
    const plain = await alice.post('/api/v1/reports', { account_id: bob.id }).expect(200)
    expect(plain.body).toMatchObject({ category: 'other', comment: '', status_ids: null, rule_ids: null })
    const spam = await alice.post('/api/v1/reports', {
      account_id: bob.id,
      category: 'spam',
      rule_ids: ['1'],
    })
    expect(spam.status).toBe(200)
    expect(spam.body).toMatchObject({ category: 'spam', rule_ids: null })
  })

  it('refuses unknown accounts, statuses of someone else, unknown rules, bad categories, long comments', async () => {
    await alice.post('/api/v1/reports', {}).expect(404, { error: 'Record not found' })
    await alice.post('/api/v1/reports', { account_id: '999999' }).expect(404)
    const own = await post(alice, 'mine')
    await alice.post('/api/v1/reports', { account_id: bob.id, status_ids: [own] }).expect(404)
    const rules = await alice
      .post('/api/v1/reports', { account_id: bob.id, rule_ids: ['424242'] })
      .expect(422)
    expect(rules.body).toEqual({ error: 'Validation failed: Rule ids does not reference valid rules' })
    const category = await alice.post('/api/v1/reports', { account_id: bob.id, category: 'rude' }).expect(422)
    expect(category.body).toEqual({ error: 'Validation failed: Category is not included in the list' })
    await alice.post('/api/v1/reports', { account_id: bob.id, comment: 'x'.repeat(1001) }).expect(422)
    const reader = await signUp(stack, { scope: 'read' })
    await reader.post('/api/v1/reports', { account_id: bob.id }).expect(403)
  })
})
