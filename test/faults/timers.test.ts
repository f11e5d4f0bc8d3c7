import { Queue } from 'bullmq'
import { bullPrefix, createRedis, QUEUES } from '@roost/events'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { eventually, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startWorkerProcess, startWorkerProcesses, stopWorkerProcess } from './worker-process'
import type { WorkerProcess } from './worker-process'

// Timers (a poll's end, a scheduled status's publication) live as delayed jobs in Redis and rows in Postgres, never
// in a process: with the worker killed between their creation and their moment, and another started, each happens
// exactly once. With ROOST_TEST_COPIES=2 two worker processes run, one is killed and started again: the timers are
// then due with two workers taking jobs, and still each happens once.
let stack: Stack
let workers: WorkerProcess[] = []
let redis: ReturnType<typeof createRedis>
let timers: Queue
let alice: TestUser
let bob: TestUser
beforeAll(async () => {
  stack = await startStack({
    accountsWorker: false,
    env: { POLL_MIN_EXPIRATION_SECONDS: '1', SCHEDULED_STATUS_MIN_OFFSET_SECONDS: '1' },
  })
  redis = createRedis(stack.env.REDIS_URL!, { forWorker: true })
  timers = new Queue(QUEUES.timers, { connection: redis, prefix: bullPrefix(stack.env.REDIS_PREFIX!) })
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
})
afterAll(async () => {
  for (const worker of workers) await stopWorkerProcess(worker, 'SIGKILL')
  await timers.close()
  await redis.quit()
  await stack.stop()
})

// How far ahead the poll ends and the status is scheduled: time enough to start and kill a worker process first
// on a slow, loaded machine (a start takes 3–5 s there; the test checks that the kill came first).
const LEAD_MS = 30_000

const notificationsOf = async (user: TestUser, type: string) =>
  (await user.get(`/api/v1/notifications?types[]=${type}`).expect(200)).body as {
    status: { id: string }
  }[]

it('a poll and a scheduled status made with no worker running, a worker SIGKILLed before their moment, another started: each done once', async () => {
  // No worker yet: the timers wait in the outbox.
  const at = new Date(Date.now() + LEAD_MS).toISOString()
  const scheduled = (
    await alice.post('/api/v1/statuses', { status: 'scheduled across a crash', scheduled_at: at }).expect(200)
  ).body
  const status = (
    await alice
      .post('/api/v1/statuses', {
        status: 'Which?',
        poll: { options: ['a', 'b'], expires_in: LEAD_MS / 1000 },
      })
      .expect(200)
  ).body
  await bob.post(`/api/v1/polls/${status.poll.id}/votes`, { choices: ['0'] }).expect(200)
  const endsAt = Date.parse(status.poll.expires_at)

  workers = await startWorkerProcesses(stack, 'accounts')
  // The relay turned it into a delayed job; then a worker dies.
  await eventually(async () => {
    const delayed = await timers.getDelayed()
    return (
      delayed.some((j) => j.data.pollId === status.poll.id) &&
      delayed.some((j) => j.data.scheduledStatusId === scheduled.id)
    )
  })
  await stopWorkerProcess(workers[0]!, 'SIGKILL')
  expect(Date.now()).toBeLessThan(Math.min(endsAt, Date.parse(at)))

  // Started again (on this loaded machine, maybe only after the end: the job is then due at once).
  workers[0] = await startWorkerProcess(stack)
  const db = stack.accounts.ctx.db
  const dueWithin = Math.max(0, Math.max(endsAt, Date.parse(at)) - Date.now()) + 60_000
  await eventually(async () => (await notificationsOf(bob, 'poll')).length > 0, dueWithin)
  await eventually(
    async () => !(await db('scheduled_statuses').where({ id: scheduled.id }).first()),
    dueWithin,
  )
  await stack.drain()
  for (const worker of workers) await stopWorkerProcess(worker, 'SIGTERM')

  for (const user of [alice, bob]) {
    const found = await notificationsOf(user, 'poll')
    expect(found).toHaveLength(1)
    expect(found[0]!.status.id).toBe(status.id)
  }
  const published = await db('statuses').where({ account_id: alice.id, text: 'scheduled across a crash' })
  expect(published).toHaveLength(1)
  expect(new Date(published[0].created_at).getTime()).toBeGreaterThanOrEqual(Date.parse(at))
  // The poll's end notified both voters, one event each (which the relay merges into one push fan-out job).
  const events: { job_name: string; payload: { type: string } }[] = await db('outbox').whereIn('job_name', [
    'notification.created',
    'notifications.created',
  ])
  const polls = events.filter((e) => e.payload.type === 'poll')
  expect(polls.map((e) => e.job_name)).toEqual(['notification.created', 'notification.created'])
  expect((await db('polls').where({ id: status.poll.id }).first()).expiry_notified_at).not.toBeNull()
}, 240_000)
