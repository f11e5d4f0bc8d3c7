import { startStack } from '../../stack'
import type { Stack } from '../../stack'
import { signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const db = () => stack.accounts.ctx.db
const lock = (user: TestUser, locked = true) => db()('accounts').where({ id: user.id }).update({ locked })
const accountOf = async (user: TestUser) => db()('accounts').where({ id: user.id }).first()
const followRequestsCount = async (user: TestUser) =>
  (await user.get('/api/v1/accounts/verify_credentials').expect(200)).body.source.follow_requests_count
const updateCredentials = (user: TestUser, body: object) =>
  stack
    .api()
    .patch('/api/v1/accounts/update_credentials')
    .set('Authorization', `Bearer ${user.token}`)
    .send(body)

describe('source.follow_requests_count (§3.3)', () => {
  it('counts pending requests, follows them as they are withdrawn or decided, and stops at 40', async () => {
    const locked = await signUp(stack)
    await lock(locked)
    expect(await followRequestsCount(locked)).toBe(0)
    const [x, y] = [await signUp(stack), await signUp(stack)]
    await x.post(`/api/v1/accounts/${locked.id}/follow`).expect(200)
    await y.post(`/api/v1/accounts/${locked.id}/follow`).expect(200)
    expect(await followRequestsCount(locked)).toBe(2)
    // Requests to someone else do not count.
    const other = await signUp(stack)
    await lock(other)
    await x.post(`/api/v1/accounts/${other.id}/follow`).expect(200)
    expect(await followRequestsCount(locked)).toBe(2)

    await x.post(`/api/v1/accounts/${locked.id}/unfollow`).expect(200)
    expect(await followRequestsCount(locked)).toBe(1)
    await locked.post(`/api/v1/follow_requests/${y.id}/authorize`).expect(200)
    expect(await followRequestsCount(locked)).toBe(0)

    // 45 pending requests count as 40, as in Mastodon.
    const requesters = await Promise.all(Array.from({ length: 45 }, () => stack.createUser()))
    await db()('follow_requests').insert(
      requesters.map((r) => ({ account_id: r.accountId, target_account_id: locked.id })),
    )
    expect(await followRequestsCount(locked)).toBe(40)
    // The same number is in the PATCH answer.
    const patched = await updateCredentials(locked, { display_name: 'Busy' }).expect(200)
    expect(patched.body.source.follow_requests_count).toBe(40)
  })
})

describe('unlocking an account (§3.4)', () => {
  it('accepts every pending request: follows, counters and follow notifications; silenced ones stay pending', async () => {
    const owner = await signUp(stack)
    await lock(owner)
    const [a, b, silenced] = [await signUp(stack), await signUp(stack), await signUp(stack)]
    await a.post(`/api/v1/accounts/${owner.id}/follow`, { reblogs: false, notify: true }).expect(200)
    await b.post(`/api/v1/accounts/${owner.id}/follow`).expect(200)
    await silenced.post(`/api/v1/accounts/${owner.id}/follow`).expect(200)
    await db()('accounts').where({ id: silenced.id }).update({ silenced_at: new Date() })

    // Changing something else leaves the requests alone.
    await updateCredentials(owner, { note: 'still locked' }).expect(200)
    await updateCredentials(owner, { locked: true }).expect(200)
    expect(await followRequestsCount(owner)).toBe(3)

    const res = await updateCredentials(owner, { locked: false }).expect(200)
    expect(res.body.locked).toBe(false)
    expect(res.body.source.follow_requests_count).toBe(1)

    const rels = await a.get(`/api/v1/accounts/relationships?id=${owner.id}`).expect(200)
    expect(rels.body[0]).toMatchObject({
      following: true,
      requested: false,
      showing_reblogs: false,
      notifying: true,
    })
    expect((await b.get(`/api/v1/accounts/relationships?id=${owner.id}`).expect(200)).body[0]).toMatchObject({
      following: true,
      requested: false,
    })
    expect(
      (await silenced.get(`/api/v1/accounts/relationships?id=${owner.id}`).expect(200)).body[0],
    ).toMatchObject({ following: false, requested: true })

    expect((await accountOf(owner)).followers_count).toBe(2)
    expect((await accountOf(a)).following_count).toBe(1)
    expect((await accountOf(b)).following_count).toBe(1)

    await stack.drain()
    const notifications = await owner.get('/api/v1/notifications?types[]=follow').expect(200)
    expect(
      notifications.body.map((n: { type: string; account: { id: string } }) => [n.type, n.account.id]).sort(),
    ).toEqual(
      [
        ['follow', a.id],
        ['follow', b.id],
      ].sort(),
    )
    // The notifications are published like any other (outbox → notifications queue).
    const events = await db()('outbox').where(
      'payload',
      '@>',
      JSON.stringify({ recipientAccountId: owner.id, type: 'follow' }),
    )
    expect(events).toHaveLength(2)
  })

  it('unlocking an account that was never locked does nothing to requests elsewhere', async () => {
    const locked = await signUp(stack)
    await lock(locked)
    const unlockedAlready = await signUp(stack)
    const follower = await signUp(stack)
    await follower.post(`/api/v1/accounts/${locked.id}/follow`).expect(200)
    await updateCredentials(unlockedAlready, { locked: false }).expect(200)
    expect(await followRequestsCount(locked)).toBe(1)
  })
})
