import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import type { OutboxEvent } from '@roost/events'
import { bullPrefix, createProducers, QUEUES } from '@roost/events'
import { eventually, startStack } from '../../stack'
import type { Stack } from '../../stack'
import { post, signUp } from '../social/helpers'
import type { TestUser } from '../social/helpers'

let stack: Stack
let redis: Redis
let activities: Queue
let producers: ReturnType<typeof createProducers>
beforeAll(async () => {
  stack = await startStack()
  redis = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: null })
  activities = new Queue(QUEUES.activities, {
    connection: redis,
    prefix: bullPrefix(stack.env.REDIS_PREFIX!),
  })
  producers = createProducers(redis, stack.env.REDIS_PREFIX!)
})
afterAll(async () => {
  await producers.close()
  await activities.close()
  redis.disconnect()
  await stack.stop()
})

const db = () => stack.accounts.ctx.db

/** The outbox rows `actor` caused, oldest first. */
const eventsBy = (actor: TestUser, names: string[]) =>
  db()('outbox')
    .whereIn('job_name', names)
    .whereRaw(`payload->>'accountId' = ?`, [actor.id])
    .orderBy('id') as Promise<
    { id: string; job_name: string; payload: OutboxEvent; published_at: Date | null }[]
  >

const notificationsOf = (user: TestUser) =>
  db()('notifications').where({ account_id: user.id }).orderBy('id') as Promise<
    { id: string; type: string }[]
  >

const notificationEvents = (user: TestUser) =>
  db()('outbox')
    .where({ job_name: 'notification.created' })
    .whereRaw(`payload->>'recipientAccountId' = ?`, [user.id])

describe('the request writes rows and activities; the worker does the rest', () => {
  it('records one activity per change, in the same transaction, each matching its schema', async () => {
    const [a, b] = [await signUp(stack), await signUp(stack)]
    const id = await post(b, `hello @${a.username} #roost`)
    await a.post(`/api/v1/accounts/${b.id}/follow`).expect(200)
    await a.post(`/api/v1/statuses/${id}/favourite`).expect(200)
    await a.post(`/api/v1/statuses/${id}/favourite`).expect(200) // again: no new activity
    await a.post(`/api/v1/statuses/${id}/reblog`).expect(200)
    await a.post(`/api/v1/accounts/${b.id}/mute`).expect(200)
    await a.post(`/api/v1/accounts/${b.id}/unmute`).expect(200)
    await a.post(`/api/v1/accounts/${b.id}/block`).expect(200)
    await a.post(`/api/v1/accounts/${b.id}/unblock`).expect(200)
    expect(
      (
        await eventsBy(a, [
          'follow.created',
          'favourite.created',
          'reblog.created',
          'mute.created',
          'mute.removed',
          'block.created',
          'block.removed',
          'follow.removed',
        ])
      ).map((e) => e.job_name),
    ).toEqual([
      'follow.created',
      'favourite.created',
      'reblog.created',
      'mute.created',
      'mute.removed',
      'follow.removed',
      'block.created',
      'block.removed',
    ])
    // A deleted status keeps its audience in the event: the rows are gone.
    await b.delete(`/api/v1/statuses/${id}`).expect(200)
    const [deleted] = await eventsBy(b, ['status.deleted'])
    expect(deleted!.payload).toEqual({
      event: 'status.deleted',
      statusId: id,
      accountId: b.id,
      visibility: 'public',
      inReplyToId: null,
      inReplyToAccountId: null,
      mentionedAccountIds: [a.id],
      tags: ['roost'],
    })
    // …and its reblog went with it.
    expect((await eventsBy(a, ['reblog.removed'])).map((e) => e.payload)).toEqual([
      expect.objectContaining({ event: 'reblog.removed', reblogOfId: id, reblogOfAccountId: b.id }),
    ])
  })

  it('a replayed activity notifies once and publishes one notification.created', async () => {
    const [a, b] = [await signUp(stack), await signUp(stack)]
    await a.post(`/api/v1/accounts/${b.id}/follow`).expect(200)
    await stack.drain()
    const [followed] = await eventsBy(a, ['follow.created'])
    // The same activity again, as after a crash between handling it and BullMQ recording that it was handled.
    await producers.publish([{ event: followed!.payload, jobId: `replay-${followed!.id}` }])
    await producers.publish([{ event: followed!.payload, jobId: `replay-again-${followed!.id}` }])
    await stack.drain()
    expect((await notificationsOf(b)).map((n) => n.type)).toEqual(['follow'])
    expect(await notificationEvents(b)).toHaveLength(1)
  })

  it('an activity handled after its undo leaves no notification (the worker re-reads the row)', async () => {
    const [a, b] = [await signUp(stack), await signUp(stack)]
    const id = await post(b, 'like me, or not')
    // Every copy's relay (two with ROOST_TEST_COPIES=2): the test publishes the rows itself, in its own order.
    await stack.stopRelays()
    try {
      await a.post(`/api/v1/statuses/${id}/favourite`).expect(200)
      await a.post(`/api/v1/statuses/${id}/unfavourite`).expect(200)
      await a.post(`/api/v1/accounts/${b.id}/follow`).expect(200)
      await a.post(`/api/v1/accounts/${b.id}/unfollow`).expect(200)
      const reblog = await a.post(`/api/v1/statuses/${id}/reblog`).expect(200)
      await a.post(`/api/v1/statuses/${id}/unreblog`).expect(200)
      const rows = await eventsBy(a, [
        'favourite.created',
        'favourite.removed',
        'follow.created',
        'follow.removed',
        'reblog.created',
        'reblog.removed',
      ])
      expect(rows).toHaveLength(6)
      expect(rows[4]!.payload).toMatchObject({ statusId: reblog.body.id })
      // The undos first, then what they undid: the order a busy worker pool may well take them in.
      const undos = rows.filter((r) => r.job_name.endsWith('.removed'))
      const dos = rows.filter((r) => r.job_name.endsWith('.created'))
      await producers.publish(undos.map((r) => ({ event: r.payload, jobId: `outbox-${r.id}` })))
      await waitForActivities()
      await producers.publish(dos.map((r) => ({ event: r.payload, jobId: `outbox-${r.id}` })))
      await waitForActivities()
    } finally {
      stack.startRelays()
    }
    await stack.drain()
    expect(await notificationsOf(b)).toEqual([])
    expect(await notificationEvents(b)).toHaveLength(0)
  })

  it('a mention of a status deleted before the worker saw it notifies nobody', async () => {
    const [a, b] = [await signUp(stack), await signUp(stack)]
    await stack.stopRelays()
    try {
      const id = await post(a, `psst @${b.username}`)
      await a.delete(`/api/v1/statuses/${id}`).expect(200)
    } finally {
      stack.startRelays()
    }
    await stack.drain()
    expect(await notificationsOf(b)).toEqual([])
  })
})

describe("a relay batch's activities travel as one job", () => {
  it('runs them in one activities.batch job; one that fails is retried as a job of its own', async () => {
    const [poster, b, victim] = [await signUp(stack), await signUp(stack), await signUp(stack)]
    // A real failure, for the victim's notification alone: its insert raises until the trigger is dropped.
    await db().raw(`CREATE OR REPLACE FUNCTION test_refuse_notification() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'refused for the test'; END $$ LANGUAGE plpgsql`)
    await db().raw(
      `CREATE TRIGGER test_refuse_notification BEFORE INSERT ON notifications FOR EACH ROW
       WHEN (NEW.account_id = ${BigInt(victim.id)}) EXECUTE FUNCTION test_refuse_notification()`,
    )
    try {
      await stack.stopRelays()
      try {
        await post(poster, `one @${b.username}`)
        await post(poster, `two @${victim.username}`)
        await post(poster, `three @${b.username}`)
      } finally {
        stack.startRelays()
      }
      const rows = await eventsBy(poster, ['status.created'])
      expect(rows).toHaveLength(3)
      // The victim's activity, retried under the id it would have had alone, after the batch completed.
      const retry = await eventually(() => activities.getJob(`outbox-${rows[1]!.id}`))
      const [batch] = (await activities.getJobs(['completed', 'active', 'waiting'])).filter((j) =>
        j.id!.startsWith(`outbox-${rows[0]!.id}+2-`),
      )
      expect(batch!.name).toBe('activities.batch')
      expect(batch!.data.activities.map((a: { jobId: string }) => a.jobId)).toEqual(
        rows.map((r) => `outbox-${r.id}`),
      )
      await eventually(async () => (await batch!.getState()) === 'completed')
      expect(retry.name).toBe('status.created')
      expect(retry.data).toEqual(rows[1]!.payload)
      expect(retry.opts.attempts).toBe(12)
      expect((await notificationsOf(b)).map((n) => n.type)).toEqual(['mention', 'mention'])
      expect(await notificationsOf(victim)).toEqual([])
    } finally {
      await db().raw('DROP TRIGGER test_refuse_notification ON notifications')
    }
    await stack.drain()
    expect((await notificationsOf(victim)).map((n) => n.type)).toEqual(['mention'])
    expect((await notificationsOf(b)).map((n) => n.type)).toEqual(['mention', 'mention'])
  })
})

/** Waits until the activities queue has nothing waiting or running. */
async function waitForActivities() {
  for (;;) {
    const counts = await activities.getJobCounts('waiting', 'active', 'delayed', 'prioritized')
    if (Object.values(counts).every((n) => n === 0)) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('side effects leave the request', () => {
  const src = path.resolve(__dirname, '../../../apps/accounts/src')
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name)
      return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : []
    })

  it('only the worker’s consumers and timers call the notification code', () => {
    const callers = files(src)
      .filter((f) => /domain\/notifications['/]/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(src, f))
      .sort()
    expect(callers).toEqual(['activities/notifications.ts', 'timers/polls.ts'])
  })

  it('the API process publishes nothing: its handlers only write to the outbox', () => {
    const publishers = files(src)
      .filter((f) => /createProducers\(|from '.*outbox\/relay'/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(src, f))
    expect(publishers).toEqual(['worker.ts'])
  })
})
