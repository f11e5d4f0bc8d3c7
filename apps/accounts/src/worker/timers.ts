import { DelayedError } from 'bullmq'
import type { Queue } from 'bullmq'
import type { Knex } from '@roost/db'
import { processor, timer } from '@roost/events'
import type { Timer } from '@roost/events'
import type { Logger } from '@roost/service'
import type { Urls } from '../entities/account'
import type { StreamingPublisher } from '../streaming/publisher'
import { endPoll, overduePolls } from '../timers/polls'
import { overdueScheduledStatuses, publishScheduledStatus } from '../timers/scheduled_statuses'

/** A timer counts as lost when its moment is this far past. */
const SWEEP_GRACE_MS = 60_000

/**
 * The `timers` queue's processor (docs/activities.md, "Timers"): each timer's handler, which returns a date when
 * the moment has not come yet; the job then waits in the delayed set until that date.
 */
export function timersProcessor(d: {
  db: Knex
  urls: Urls
  streaming: StreamingPublisher
  logger: Logger
  minPollExpirationSeconds: number
  /** A local poll's counts to other servers (the federation consumer's). */
  distributePoll: (pollId: string, key: string) => Promise<void>
  concurrency: number
  /** The daily media cleanup (the `media.cleanup` timer); absent, the timer does nothing. */
  mediaCleanup?: () => Promise<unknown>
}) {
  const handlers: {
    [N in Timer['event']]: (t: Extract<Timer, { event: N }>) => Promise<Date | undefined>
  } = {
    'poll.expired': (t) => endPoll(d.db, d.urls, t.pollId, d.streaming),
    'scheduled_status.due': (t) =>
      publishScheduledStatus(d.db, d.logger, t.scheduledStatusId, d.minPollExpirationSeconds),
    'poll.distribute': async (t) => {
      await d.distributePoll(t.pollId, `poll-${t.pollId}-${Date.parse(t.runAt)}`)
      return undefined
    },
    'media.cleanup': async () => {
      await d.mediaCleanup?.()
      return undefined
    },
  }
  return processor({
    schema: timer,
    async process(t, job, token) {
      const later = await (handlers[t.event] as (t: Timer) => Promise<Date | undefined>)(t)
      if (later) {
        await job.moveToDelayed(later.getTime(), token)
        throw new DelayedError()
      }
    },
    concurrency: d.concurrency,
  })
}

/**
 * Adds a `poll.distribute` timer `delayMs` from now, once per poll: the votes of the next few minutes find it
 * pending and add nothing. Removed once run, so that the first vote after it asks for the next one. Added to the
 * queue, not the outbox (docs/activities.md, "Outbox or queue"): a lost one is made up for by the next vote's or
 * the poll's end.
 */
export const distributePollSoon = (timers: Queue, delayMs: number) => async (pollId: string) => {
  const update: Timer = {
    event: 'poll.distribute',
    pollId,
    runAt: new Date(Date.now() + delayMs).toISOString(),
  }
  await timers.add(update.event, update, {
    jobId: `poll-update-${pollId}`,
    delay: delayMs,
    attempts: 12,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: true,
    removeOnFail: true,
  })
}

/** The id of the job scheduler that adds the daily `media.cleanup` timer. */
export const MEDIA_CLEANUP_SCHEDULER = 'media-cleanup'
/** Once a day at a quiet hour (Mastodon's MediaCleanupScheduler runs between 03:00 and 05:59), in UTC. */
export const MEDIA_CLEANUP_PATTERN = '17 4 * * *'

/**
 * Sets the daily `media.cleanup` timer (docs/activities.md, "Timers"): a BullMQ job scheduler, one per queue
 * whatever the number of workers (each start upserts the same id), which adds one job a day at 04:17 UTC; a run
 * missed is not made up for, the next day's does its work. Set again at every start, so a Redis that lost its data
 * gets it back.
 */
export async function scheduleMediaCleanup(timers: Queue) {
  const cleanup: Timer = { event: 'media.cleanup' }
  await timers.upsertJobScheduler(
    MEDIA_CLEANUP_SCHEDULER,
    { pattern: MEDIA_CLEANUP_PATTERN, tz: 'UTC' },
    {
      name: cleanup.event,
      data: cleanup,
      opts: {
        attempts: 3,
        backoff: { type: 'exponential', delay: 60_000 },
        removeOnComplete: true,
        removeOnFail: 10,
      },
    },
  )
}

/**
 * Timers whose job was lost (Redis restarted without its data) are found in Postgres and set again. Job ids are
 * deterministic, so a sweep adds nothing while such a job is pending, and the handlers do their work once.
 */
export async function sweepLostTimers(db: Knex, timers: Queue) {
  const lost: { name: Timer['event']; data: Timer; opts: { jobId: string } }[] = [
    ...(await overduePolls(db, SWEEP_GRACE_MS)).map((p) => ({
      name: 'poll.expired' as const,
      data: { event: 'poll.expired' as const, pollId: p.id, runAt: new Date(p.expires_at).toISOString() },
      opts: { jobId: `sweep-poll-${p.id}` },
    })),
    ...(await overdueScheduledStatuses(db, SWEEP_GRACE_MS)).map((s) => ({
      name: 'scheduled_status.due' as const,
      data: {
        event: 'scheduled_status.due' as const,
        scheduledStatusId: s.id,
        runAt: new Date(s.scheduled_at).toISOString(),
      },
      opts: { jobId: `sweep-scheduled-status-${s.id}` },
    })),
  ]
  if (lost.length) await timers.addBulk(lost)
}
