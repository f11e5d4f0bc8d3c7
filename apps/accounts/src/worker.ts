import { DelayedError, Queue, UnrecoverableError, Worker } from 'bullmq'
import type { Job } from 'bullmq'
import { Counter, Histogram } from 'prom-client'
import { createDatabase } from '@roost/db'
import type { Activity, Timer } from '@roost/events'
import {
  activity,
  bullPrefix,
  createProducers,
  createRedis,
  delivery,
  inboxActivity,
  QUEUES,
  timer,
  waitingOutOutages,
} from '@roost/events'
import { createApp, createLogger, createMetrics, finishApp, lifecycle } from '@roost/service'
import { createReads } from './domain/reads'
import type { Consumer } from './activities/consumer'
import type { Reads } from './domain/reads'
import { conversationsConsumer } from './activities/conversations'
import { federationConsumer } from './activities/federation'
import { feedsConsumer } from './activities/feeds'
import { notificationsConsumer } from './activities/notifications'
import { remoteMediaConsumer } from './activities/remote-media'
import { streamingConsumer } from './activities/streaming'
import type { AccountsWorkerConfig } from './config'
import { SCHEMA } from './db/migrations'
import { urlsOf } from './entities/account'
import { createFeedStore } from './feeds/store'
import { createFederation } from './federation/transport/client'
import { deliverNow } from './federation/transport/delivery'
import { createHostSlots } from './federation/transport/host-slots'
import { isDomainBlocked } from './federation/domain-blocks'
import { createDeliver } from './federation/transport/delivery-queue'
import { processActivity } from './federation/inbox/process'
import { refreshStaleAccounts } from './federation/refresh'
import { domainOf } from './federation/remote-accounts'
import { createOutboxRelay } from './outbox/relay'
import { createStreamingPublisher } from './streaming/publisher'
import { endPoll, overduePolls } from './timers/polls'
import { overdueScheduledStatuses, publishScheduledStatus } from './timers/scheduled_statuses'

/** How often the worker looks for timers that are overdue because their job was lost (a Redis without its data). */
const SWEEP_EVERY_MS = 60_000
/** A timer counts as lost when its moment is this far past. */
const SWEEP_GRACE_MS = 60_000
/** A delivery to a host with every slot taken waits this long (up to twice, jittered) before trying again. */
const HOST_BUSY_DELAY_MS = 250

/**
 * The accounts worker (docs/activities.md): relays the outbox to BullMQ, and consumes the activities the
 * accounts app records, so that requests only write their rows and events. An HTTP server on
 * ACCOUNTS_WORKER_PORT answers /health/live, /health/ready and /metrics.
 */
export async function createAccountsWorker(config: AccountsWorkerConfig) {
  const logger = createLogger('accounts-worker', config.LOG_LEVEL)
  const db = createDatabase(config.DATABASE_URL, SCHEMA)
  const connection = createRedis(config.REDIS_URL, { forWorker: true })
  const redis = createRedis(config.REDIS_URL)
  const prefix = bullPrefix(config.REDIS_PREFIX)
  const metrics = createMetrics('accounts-worker')
  const handled = new Counter({
    name: 'activities_handled_total',
    help: 'Activities handled, by event and outcome',
    labelNames: ['event', 'outcome'],
    registers: [metrics],
  })
  const duration = new Histogram({
    name: 'activity_duration_seconds',
    help: 'Time to handle one activity (every consumer), by event',
    labelNames: ['event'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [metrics],
  })
  const published = new Counter({
    name: 'outbox_published_total',
    help: 'Outbox events published to BullMQ',
    registers: [metrics],
  })
  const producers = createProducers(connection, config.REDIS_PREFIX)
  const relay = createOutboxRelay({
    db,
    producers,
    logger,
    redis,
    redisPrefix: config.REDIS_PREFIX,
    databaseUrl: config.DATABASE_URL,
    onPublished: (n) => published.inc(n),
  })
  const activities = new Queue(QUEUES.activities, { connection, prefix })
  const timers = new Queue(QUEUES.timers, { connection, prefix })
  const feeds = createFeedStore(redis, config.REDIS_PREFIX)
  const streaming = createStreamingPublisher({
    db,
    redis,
    redisPrefix: config.REDIS_PREFIX,
    urls: urlsOf(config.PUBLIC_URL),
    logger,
  })
  const federation = createFederation({ db, config, logger })
  const deliveries = new Queue(QUEUES.deliveries, { connection, prefix })
  const inbox = new Queue(QUEUES.inbox, { connection, prefix })
  const deliver = createDeliver(federation, deliveries, config.FEDERATION_RETRY_BASE_MS)
  const hostSlots = createHostSlots(redis, config.REDIS_PREFIX, config.FEDERATION_HOST_CONCURRENCY)
  const federationOut = federationConsumer(federation, deliver, async (pollId) => {
    const delay = config.FEDERATION_POLL_UPDATE_DELAY_MS
    const update: Timer = {
      event: 'poll.distribute',
      pollId,
      runAt: new Date(Date.now() + delay).toISOString(),
    }
    // One pending per poll: the votes of the next few minutes find it and add nothing. Removed once run, so that
    // the first vote after it asks for the next one.
    await timers.add(update.event, update, {
      jobId: `poll-update-${pollId}`,
      delay,
      attempts: 12,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: true,
      removeOnFail: true,
    })
  })
  const consumers: Consumer[] = [
    notificationsConsumer(db, urlsOf(config.PUBLIC_URL), streaming),
    conversationsConsumer(db, streaming),
    feedsConsumer({
      db,
      store: feeds,
      activeDays: config.USER_ACTIVE_DAYS,
      listener: streaming.feedListener,
    }),
    streamingConsumer(db, urlsOf(config.PUBLIC_URL), streaming),
    federationOut,
    // Last: a slow remote server delays nothing the others do.
    remoteMediaConsumer(db, federation, { config }, logger),
  ]

  async function handle(job: Job) {
    const parsed = activity.safeParse(job.data)
    if (!parsed.success) throw new UnrecoverableError(`invalid activity: ${parsed.error.message}`)
    const a: Activity = parsed.data
    const stop = duration.startTimer({ event: a.event })
    try {
      const reads = createReads(db)
      for (const consumer of consumers)
        await (consumer[a.event] as ((a: Activity, reads: Reads) => Promise<void>) | undefined)?.(a, reads)
      handled.inc({ event: a.event, outcome: 'done' })
    } catch (err) {
      handled.inc({ event: a.event, outcome: 'failed' })
      throw err
    } finally {
      stop()
    }
  }

  /** An activity from another server, its signature verified by the inbox (docs/federation.md, "Inboxes"). */
  async function runInbox(job: Job) {
    const parsed = inboxActivity.safeParse(job.data)
    if (!parsed.success) throw new UnrecoverableError(`invalid inbox activity: ${parsed.error.message}`)
    const signer = await db('accounts').where({ id: parsed.data.signerAccountId }).first()
    // Nothing from a server suspended since (docs/federation.md, "Domain blocks").
    if (!signer?.domain || (await isDomainBlocked(db, signer.domain))) return
    const type = String(parsed.data.activity.type)
    const stop = duration.startTimer({ event: `inbox.${type}` })
    try {
      await processActivity(federation, deliver, signer, parsed.data.activity)
      handled.inc({ event: 'inbox.received', outcome: 'done' })
    } catch (err) {
      handled.inc({ event: 'inbox.received', outcome: 'failed' })
      throw err
    } finally {
      stop()
    }
  }

  /**
   * One signed POST to one inbox (docs/federation.md, "Delivery"), when the host has a free slot; a job that finds
   * the host busy waits a moment in the delayed set without spending an attempt.
   */
  async function runDelivery(job: Job, token?: string) {
    const parsed = delivery.safeParse(job.data)
    if (!parsed.success) throw new UnrecoverableError(`invalid delivery: ${parsed.error.message}`)
    const host = domainOf(parsed.data.inbox)
    const holder = job.id!
    if (!(await hostSlots.acquire(host, holder))) {
      handled.inc({ event: 'delivery', outcome: 'host busy' })
      await job.moveToDelayed(Date.now() + HOST_BUSY_DELAY_MS * (1 + Math.random()), token)
      throw new DelayedError()
    }
    try {
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1)
      const outcome = await deliverNow(federation, parsed.data, lastAttempt)
      handled.inc({ event: 'delivery', outcome })
    } finally {
      await hostSlots.release(host, holder)
    }
  }

  const urls = urlsOf(config.PUBLIC_URL)
  /** What each timer does; a date means "not yet: run again then". */
  const timerHandlers: {
    [N in Timer['event']]: (t: Extract<Timer, { event: N }>) => Promise<Date | undefined>
  } = {
    'poll.expired': (t) => endPoll(db, urls, t.pollId, streaming),
    'scheduled_status.due': (t) =>
      publishScheduledStatus(db, logger, t.scheduledStatusId, config.POLL_MIN_EXPIRATION_SECONDS),
    'poll.distribute': async (t) => {
      await federationOut.distributePoll(t.pollId, `poll-${t.pollId}-${Date.parse(t.runAt)}`)
      return undefined
    },
  }

  async function runTimer(job: Job, token?: string) {
    const parsed = timer.safeParse(job.data)
    if (!parsed.success) throw new UnrecoverableError(`invalid timer: ${parsed.error.message}`)
    const t: Timer = parsed.data
    const stop = duration.startTimer({ event: t.event })
    try {
      const later = await (timerHandlers[t.event] as (t: Timer) => Promise<Date | undefined>)(t)
      handled.inc({ event: t.event, outcome: later ? 'early' : 'done' })
      if (later) {
        await job.moveToDelayed(later.getTime(), token)
        throw new DelayedError()
      }
    } catch (err) {
      if (!(err instanceof DelayedError)) handled.inc({ event: t.event, outcome: 'failed' })
      throw err
    } finally {
      stop()
    }
  }

  /**
   * Timers whose job was lost (Redis restarted without its data) are found in Postgres and set again. Job ids are
   * deterministic, so a sweep adds nothing while such a job is pending, and the handlers do their work once.
   */
  async function sweep() {
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

  /** The queues this process consumes, each with its processor and the name its log lines and errors use. */
  const queueWorkers = [
    { queue: QUEUES.activities, processor: handle, what: 'activities' },
    { queue: QUEUES.timers, processor: runTimer, what: 'timers' },
    { queue: QUEUES.inbox, processor: runInbox, what: 'inbox' },
    { queue: QUEUES.deliveries, processor: runDelivery, what: 'deliveries' },
  ] as const
  const databaseDown = () =>
    db.raw('select 1').then(
      () => false,
      () => true,
    )
  let workers: Worker[] = []
  let sweeper: NodeJS.Timeout | undefined
  const app = createApp({
    logger,
    metrics,
    readiness: {
      postgres: () => db.raw('select 1'),
      redis: () => redis.ping(),
      worker: async () => {
        queueWorkers.forEach(({ what }, i) => {
          if (!workers[i]?.isRunning()) throw new Error(`the ${what} worker is not running`)
        })
      },
    },
  })
  finishApp(app)

  const service = lifecycle({
    app,
    logger,
    host: config.BIND_HOST,
    afterStart() {
      workers = queueWorkers.map(({ queue, processor, what }) => {
        const consumer = new Worker(queue, waitingOutOutages(processor, databaseDown), {
          connection,
          prefix,
          concurrency: config.ACCOUNTS_WORKER_CONCURRENCY,
          lockDuration: config.ACCOUNTS_WORKER_LOCK_MS,
          stalledInterval: config.ACCOUNTS_WORKER_LOCK_MS,
          // A job whose worker died is tried again, not failed: its handlers are idempotent.
          maxStalledCount: 10,
        })
        consumer.on('failed', (job, err) =>
          // A failed delivery is routine (the other server is down) and will be retried: not a warning.
          logger[queue === QUEUES.deliveries ? 'info' : 'warn'](
            { err, jobId: job?.id, event: job?.name, attempts: job?.attemptsMade },
            `${what} job failed`,
          ),
        )
        consumer.on('error', (err) => logger.error({ err }, `${what} worker error`))
        return consumer
      })
      relay.start()
      sweeper = setInterval(() => {
        void sweep().catch((err) => logger.warn({ err }, 'timer sweep failed; will retry'))
        // Remote profiles a day old are fetched again, a few a round (docs/federation.md, "Remote accounts").
        if (config.FEDERATION)
          void refreshStaleAccounts(federation).catch((err) =>
            logger.warn({ err }, 'profile refresh failed; will retry'),
          )
      }, SWEEP_EVERY_MS)
      sweeper.unref()
    },
    async close() {
      // Both finish what they are doing first: the relay its batch, the worker its jobs in progress.
      clearInterval(sweeper)
      await relay.stop()
      for (const consumer of workers) await consumer.close()
      await inbox.close()
      await deliveries.close()
      federation.close()
      await activities.close()
      await timers.close()
      await producers.close()
      await db.destroy()
      await connection.quit().catch(() => connection.disconnect())
      await redis.quit().catch(() => redis.disconnect())
    },
  })

  /** Resolves once no activity is waiting, delayed or running (tests). */
  async function idle(timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const counts = await activities.getJobCounts('waiting', 'active', 'delayed', 'prioritized')
      if (Object.values(counts).every((n) => n === 0)) return
      if (Date.now() > deadline) throw new Error(`activities still pending: ${JSON.stringify(counts)}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  /**
   * Stops taking jobs until `resume()`; jobs keep arriving and wait (tests: what a read sees while the worker is
   * busy elsewhere).
   */
  async function pause() {
    await Promise.all(workers.map((consumer) => consumer.pause()))
  }
  const resume = () => workers.forEach((consumer) => consumer.resume())

  // Object.assign keeps `service.url` a live getter (a spread would copy it before start()).
  return Object.assign(service, {
    db,
    metrics,
    relay,
    activities,
    timers,
    inbox,
    deliveries,
    federation,
    feeds,
    idle,
    pause,
    resume,
    sweep,
  })
}

export type AccountsWorker = Awaited<ReturnType<typeof createAccountsWorker>>
