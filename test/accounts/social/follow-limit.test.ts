import { startStack } from '../../stack'
import type { Stack } from '../../stack'
import { signUp } from './helpers'
import type { TestUser } from './helpers'

// A ceiling of 3 follows, or followers × 1.5 above that (Mastodon: 7,500 and 1.1).
let stack: Stack
beforeAll(async () => {
  stack = await startStack({ env: { MAX_FOLLOWS_THRESHOLD: '3', MAX_FOLLOWS_RATIO: '1.5' } })
})
afterAll(() => stack.stop())

const db = () => stack.accounts.ctx.db
const users = (n: number) => Promise.all(Array.from({ length: n }, () => signUp(stack)))
const follow = (actor: TestUser, target: TestUser) => actor.post(`/api/v1/accounts/${target.id}/follow`)

describe('follow ceiling (§3.11, MAX_FOLLOWS_THRESHOLD / MAX_FOLLOWS_RATIO)', () => {
  it('refuses the follow past the threshold with 422; updating or re-following an existing follow still works', async () => {
    const actor = await signUp(stack)
    const targets = await users(4)
    for (const target of targets.slice(0, 3)) await follow(actor, target).expect(200)
    const refused = await follow(actor, targets[3]!).expect(422)
    expect(refused.body).toEqual({ error: 'Validation failed: You cannot follow more than 3 people' })
    expect((await db()('accounts').where({ id: actor.id }).first()).following_count).toBe(3)
    expect(
      await db()('follows').where({ account_id: actor.id, target_account_id: targets[3]!.id }).first(),
    ).toBe(undefined)

    // Changing the options of an existing follow is not a new follow.
    const updated = await actor
      .post(`/api/v1/accounts/${targets[0]!.id}/follow`, { reblogs: false })
      .expect(200)
    expect(updated.body).toMatchObject({ following: true, showing_reblogs: false })

    // Unfollowing makes room again.
    await actor.post(`/api/v1/accounts/${targets[0]!.id}/unfollow`).expect(200)
    await follow(actor, targets[3]!).expect(200)
  })

  it('counts requests to locked accounts too, but an authorized request is never refused', async () => {
    const actor = await signUp(stack)
    for (const target of await users(3)) await follow(actor, target).expect(200)
    const locked = await signUp(stack)
    await db()('accounts').where({ id: locked.id }).update({ locked: true })
    expect((await follow(actor, locked).expect(422)).body.error).toBe(
      'Validation failed: You cannot follow more than 3 people',
    )

    // A request made while there was room is accepted later even if the actor has filled up since.
    const requester = await signUp(stack)
    await follow(requester, locked).expect(200)
    for (const target of await users(3)) await follow(requester, target).expect(200)
    const ok = await locked.post(`/api/v1/follow_requests/${requester.id}/authorize`).expect(200)
    expect(ok.body).toMatchObject({ followed_by: true })
    expect((await db()('accounts').where({ id: requester.id }).first()).following_count).toBe(4)
  })

  it('above the threshold, followers × ratio is the ceiling', async () => {
    const actor = await signUp(stack)
    for (const target of await users(3)) await follow(actor, target).expect(200)
    // 4 followers × 1.5 = 6 allowed.
    for (const follower of await users(4)) await follow(follower, actor).expect(200)
    for (const target of await users(3)) await follow(actor, target).expect(200)
    const [next] = await users(1)
    expect((await follow(actor, next!).expect(422)).body).toEqual({
      error: 'Validation failed: You cannot follow more than 6 people',
    })
  })
})
