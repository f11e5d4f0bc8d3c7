import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

let stack: Stack
let alice: TestUser
beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
})
afterAll(() => stack.stop())

const postWithKey = (user: TestUser, key: string, body: object = { status: `post with ${key}` }) =>
  user.post('/api/v1/statuses', body).set('Idempotency-Key', key)
const statusesCount = async (user: TestUser) =>
  Number((await stack.accounts.ctx.db('statuses').where({ account_id: user.id }).count('* as n'))[0]!.n)

describe('POST /api/v1/statuses with Idempotency-Key', () => {
  it('answers a repeat with the first status, for an hour', async () => {
    const before = await statusesCount(alice)
    const first = await postWithKey(alice, 'k1').expect(200)
    const again = await postWithKey(alice, 'k1', { status: 'a different text' }).expect(200)
    expect(again.body.id).toBe(first.body.id)
    expect(again.body.content).toBe(first.body.content)
    expect(await statusesCount(alice)).toBe(before + 1)

    const keys = await stack.accounts.ctx.redis.keys(
      `${stack.env.REDIS_PREFIX}:idempotency:status:${alice.id}:*`,
    )
    expect(keys).toHaveLength(1)
    const ttl = await stack.accounts.ctx.redis.ttl(keys[0]!)
    expect(ttl).toBeGreaterThan(3500)
    expect(ttl).toBeLessThanOrEqual(3600)
  })

  it('keys are per user, and posts without a key are never merged', async () => {
    const bob = await signUp(stack, { username: 'bob' })
    const a = await postWithKey(alice, 'shared').expect(200)
    const b = await postWithKey(bob, 'shared').expect(200)
    expect(b.body.id).not.toBe(a.body.id)
    expect(b.body.account.id).toBe(bob.id)
    const plain1 = await alice.post('/api/v1/statuses', { status: 'same' }).expect(200)
    const plain2 = await alice.post('/api/v1/statuses', { status: 'same' }).expect(200)
    expect(plain2.body.id).not.toBe(plain1.body.id)
  })

  it('makes one status from identical requests sent at the same time', async () => {
    const carol = await signUp(stack, { username: 'carol' })
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => postWithKey(carol, `burst-${round}`, { status: `burst ${round}` })),
      )
      expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200))
      expect(new Set(answers.map((r) => r.body.id)).size).toBe(1)
    }
    expect(await statusesCount(carol)).toBe(5)
  })

  it('a refused first request does not hold the key: the corrected repeat posts', async () => {
    const refused = await postWithKey(alice, 'k-fix', { status: '   ' }).expect(422)
    expect(refused.body).toEqual({ error: "Validation failed: Text can't be blank" })
    const fixed = await postWithKey(alice, 'k-fix', { status: 'now with text' }).expect(200)
    expect(fixed.body.content).toBe('<p>now with text</p>')
    const repeat = await postWithKey(alice, 'k-fix', { status: 'now with text' }).expect(200)
    expect(repeat.body.id).toBe(fixed.body.id)
  })
})
