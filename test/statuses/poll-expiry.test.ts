import { Queue } from 'bullmq'
import { bullPrefix, createRedis, QUEUES } from '@roost/events'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { eventually, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

// Polls may last a second here (Mastodon's shortest is 5 minutes), so their end is seen within the test.
let stack: Stack
let alice: TestUser
let bob: TestUser
let carol: TestUser
let dave: TestUser
let timers: Queue
let redis: ReturnType<typeof createRedis>
beforeAll(async () => {
  stack = await startStack({ env: { POLL_MIN_EXPIRATION_SECONDS: '1' } })
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
  carol = await signUp(stack, { username: 'carol' })
  dave = await signUp(stack, { username: 'dave' })
  redis = createRedis(stack.env.REDIS_URL!, { forWorker: true })
  timers = new Queue(QUEUES.timers, {
    connection: redis,
    prefix: bullPrefix(stack.env.REDIS_PREFIX!),
  })
})
afterAll(async () => {
  await timers.close()
  await redis.quit()
  await stack.stop()
})

const pollNotifications = async (user: TestUser) =>
  (await user.get('/api/v1/notifications?types[]=poll').expect(200)).body as {
    type: string
    created_at: string
    account: { id: string }
    status: { id: string; poll: { id: string; expired: boolean; votes_count: number } }
  }[]

describe('the end of a poll', () => {
  it('notifies the author and every voter once, from the author; others hear nothing', async () => {
    const status = (
      await alice
        .post('/api/v1/statuses', { status: 'Tea?', poll: { options: ['yes', 'no'], expires_in: 8 } })
        .expect(200)
    ).body
    expect(status.poll.expired).toBe(false)
    await bob.post(`/api/v1/polls/${status.poll.id}/votes`, { choices: ['0'] }).expect(200)
    await carol.post(`/api/v1/polls/${status.poll.id}/votes`, { choices: ['1'] }).expect(200)

    const [toAlice] = await eventually(async () => {
      const found = await pollNotifications(alice)
      return found.length ? found : undefined
    })
    await stack.drain()
    expect(toAlice).toMatchObject({
      type: 'poll',
      account: { id: alice.id },
      status: { id: status.id, poll: { id: status.poll.id, expired: true, votes_count: 2 } },
    })
    expect(Date.parse(toAlice!.created_at)).toBeGreaterThanOrEqual(Date.parse(status.poll.expires_at))
    for (const voter of [bob, carol]) {
      const found = await pollNotifications(voter)
      expect(found).toHaveLength(1)
      expect(found[0]).toMatchObject({ account: { id: alice.id }, status: { id: status.id } })
    }
    expect(await pollNotifications(dave)).toEqual([])

    // The timer run again (a replay, the sweep) notifies nobody a second time.
    await timers.add(
      'poll.expired',
      { event: 'poll.expired', pollId: status.poll.id, runAt: status.poll.expires_at },
      { jobId: `again-${status.poll.id}` },
    )
    await eventually(async () => (await timers.getJobState(`again-${status.poll.id}`)) === 'completed')
    await stack.drain()
    for (const user of [alice, bob, carol]) expect(await pollNotifications(user)).toHaveLength(1)
  })

  it('waits for the new end when an edit restarts the poll, and then notifies', async () => {
    const status = (
      await alice
        .post('/api/v1/statuses', { status: 'Now?', poll: { options: ['a', 'b'], expires_in: 3 } })
        .expect(200)
    ).body
    const edited = (
      await stack
        .api()
        .put(`/api/v1/statuses/${status.id}`)
        .set('Authorization', `Bearer ${alice.token}`)
        .send({ status: 'Now?', poll: { options: ['a', 'b'], expires_in: 10 } })
        .expect(200)
    ).body
    await dave.post(`/api/v1/polls/${status.poll.id}/votes`, { choices: ['0'] }).expect(200)
    const notified = await eventually(async () => {
      const found = (await pollNotifications(dave)).filter((n) => n.status.id === status.id)
      return found.length ? found : undefined
    })
    await stack.drain()
    expect(notified).toHaveLength(1)
    // Not at the first end (the old timer waited), but at the new one.
    expect(Date.parse(notified[0]!.created_at)).toBeGreaterThanOrEqual(Date.parse(edited.poll.expires_at))
    expect((await pollNotifications(alice)).filter((n) => n.status.id === status.id)).toHaveLength(1)
  })

  it('is found by the sweep when its timer was lost with Redis', async () => {
    const status = (
      await alice
        .post('/api/v1/statuses', { status: 'Lost?', poll: { options: ['a', 'b'], expires_in: 3600 } })
        .expect(200)
    ).body
    await bob.post(`/api/v1/polls/${status.poll.id}/votes`, { choices: ['1'] }).expect(200)
    await stack.drain()
    // Redis lost the delayed job; the poll ended two minutes ago as far as Postgres knows.
    const job = (await timers.getDelayed()).find((j) => j.data.pollId === status.poll.id)
    expect(job).toBeDefined()
    await job!.remove()
    await stack.accounts.ctx
      .db('polls')
      .where({ id: status.poll.id })
      .update({ expires_at: new Date(Date.now() - 120_000) })

    await stack.accountsWorker!.sweep()
    const found = await eventually(async () => {
      const n = (await pollNotifications(bob)).filter((x) => x.status.id === status.id)
      return n.length ? n : undefined
    })
    await stack.drain()
    expect(found).toHaveLength(1)
    // A second sweep finds nothing left to do.
    await stack.accountsWorker!.sweep()
    await eventually(async () => (await timers.getJobCounts('waiting', 'active')).waiting === 0)
    await stack.drain()
    expect((await pollNotifications(bob)).filter((x) => x.status.id === status.id)).toHaveLength(1)
  })

  it('shows the shortest poll this server takes in /api/v2/instance', async () => {
    const instance = await stack.api().get('/api/v2/instance').expect(200)
    expect(instance.body.configuration.polls.min_expiration).toBe(1)
  })
})
