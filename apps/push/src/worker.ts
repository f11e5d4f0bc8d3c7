import { Queue, UnrecoverableError, Worker } from 'bullmq'
import type { Job, MinimalJob } from 'bullmq'
import { Counter, Histogram } from 'prom-client'
import { createDatabase } from '@roost/db'
import type { NotificationCreated } from '@roost/events'
import {
  accountEvent,
  bullPrefix,
  COMPLETED_JOB_RETENTION,
  createRedis,
  JOB_NAMES,
  notificationCreated,
  notificationsCreated,
  waitingOutOutages,
} from '@roost/events'
import { createApp, createLogger, createMetrics, finishApp, lifecycle } from '@roost/service'
import type { PushConfig } from './config'
import { createAddressGuard, PrivateAddressError } from '@roost/service'
import {
  DELIVERY_JOB_NAME,
  deliveryJob,
  deliveryJobId,
  parseRetryAfter,
  RetryablePushError,
} from './delivery/job'
import { acknowledgedAmong, createAcknowledger, forgetAcknowledgements } from './delivery/acknowledgements'
import { createPushClaims } from './delivery/claims'
import { pushPayload } from './delivery/payload'
import { createPushSender, PUSH_TTL_SECONDS } from './delivery/sender'
import { SCHEMA } from './service'
import { isAuthSecret, isP256PublicKey } from './subscriptions/keys'
import {
  deleteById,
  deleteByToken,
  deleteByUser,
  findById,
  isPushable,
  subscriptionsOf,
} from './subscriptions/store'
import type { SubscriptionRow } from './subscriptions/store'

/** How often acknowledgements older than a push's life are deleted. */
const FORGET_EVERY_MS = 3600 * 1000

/** A payload that does not match its schema will never match it: fail the job for good instead of retrying. */
function parseOrFail<T>(
  schema: { safeParse(data: unknown): { success: true; data: T } | { success: false; error: Error } },
  data: unknown,
): T {
  const result = schema.safeParse(data)
  if (!result.success) throw new UnrecoverableError(`invalid job payload: ${result.error.message}`)
  return result.data
}

/** A push to make: `subscription` undefined when a retry finds it gone. */
interface Push {
  subscription: SubscriptionRow | undefined
  event: NotificationCreated
  deliveryId: string
}

/**
 * Whether the subscription belongs to the notification's recipient: a notification is pushed to its recipient's
 * subscriptions only. A retry reads its subscription by id, and a subscription whose endpoint another token took is
 * deleted and succeeded by a row with a new id (subscriptions/store.ts, `replaceSubscription`), so the retry finds
 * nothing; this check holds even for a row that a job's id would name some other way.
 */
const ownedByRecipient = (subscription: SubscriptionRow, event: NotificationCreated) =>
  String(subscription.user_id) === event.recipientUserId

/** Mastodon skips pushes for notifications older than its push TTL (mastodon/mastodon#32842). */
const isStale = (event: NotificationCreated) =>
  Date.now() - Date.parse(event.createdAt) > PUSH_TTL_SECONDS * 1000

/**
 * The push workers (docs/architecture.md, "Events"): fan-out of `notification.created` into one delivery job per
 * subscription, delivery of encrypted Web Push messages, and clean-up on account events. An HTTP server on
 * PUSH_WORKER_PORT answers /health/live, /health/ready and /metrics.
 */
export async function createPushWorker(config: PushConfig) {
  const logger = createLogger('push-worker', config.LOG_LEVEL)
  const db = createDatabase(config.DATABASE_URL, SCHEMA)
  const connection = createRedis(config.REDIS_URL, { forWorker: true })
  const prefix = bullPrefix(config.REDIS_PREFIX)
  const metrics = createMetrics('push-worker')
  const deliveries = new Counter({
    name: 'push_deliveries_total',
    help: 'Push delivery attempts by outcome',
    labelNames: ['outcome'],
    registers: [metrics],
  })
  const latency = new Histogram({
    name: 'push_delivery_latency_seconds',
    help: 'Time from the notification to its push being accepted by the push service',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [metrics],
  })
  const sender = createPushSender(config, createAddressGuard(config.PUSH_ALLOWED_PRIVATE_ADDRESSES))
  const acknowledge = createAcknowledger(db)
  // A claim outlives any send and a dead holder's wait for BullMQ to run its job again.
  const claims = createPushClaims(
    connection,
    config.REDIS_PREFIX,
    2 * (config.PUSH_REQUEST_TIMEOUT_MS + config.PUSH_WORKER_LOCK_MS),
  )
  const queues = {
    notifications: new Queue(config.PUSH_NOTIFICATIONS_QUEUE, { connection, prefix }),
    deliveries: new Queue(config.PUSH_DELIVERIES_QUEUE, { connection, prefix }),
    accountEvents: new Queue(config.PUSH_ACCOUNT_EVENTS_QUEUE, { connection, prefix }),
  }

  /**
   * Exponential from PUSH_RETRY_BASE_MS, but never sooner than the push service's Retry-After. A delivery job counts
   * the fan-out's first attempt (`attemptsBefore`).
   */
  const backoffStrategy = (attemptsMade: number, _type?: string, err?: Error, job?: MinimalJob) =>
    Math.max(
      config.PUSH_RETRY_BASE_MS * 2 ** (attemptsMade + Number(job?.data?.attemptsBefore ?? 0) - 1),
      err instanceof RetryablePushError ? err.retryAfterMs : 0,
    )

  /**
   * Pushes of `event` to `subscription` (re-read by a retry: it may have gone or changed since), each once ever per
   * `deliveryId`: a delivery the push service has accepted is recorded in Postgres before the job that made it
   * completes, and one already recorded is not sent again; `holder` (the job) claims each while sending
   * (delivery/claims.ts). The claims are taken in one Redis round trip and the records read in one statement, in
   * that order: a push is checked only once it is ours. Each push's outcome, in order: a push service's failure
   * worth retrying is a RetryablePushError; one that will never succeed an UnrecoverableError; anything else
   * (Postgres down) fails the job, to be run again.
   */
  async function pushAll(pushes: Push[], holder: string): Promise<PromiseSettledResult<void>[]> {
    const outcomes: PromiseSettledResult<void>[] = pushes.map(() => ({
      status: 'fulfilled',
      value: undefined,
    }))
    const sendable: number[] = []
    for (const [i, { subscription, event }] of pushes.entries()) {
      if (!subscription || !isPushable(subscription, event) || !ownedByRecipient(subscription, event))
        deliveries.inc({ outcome: 'skipped' })
      else if (!isP256PublicKey(subscription.key_p256dh) || !isAuthSecret(subscription.key_auth)) {
        try {
          await deleteById(db, String(subscription.id))
          deliveries.inc({ outcome: 'invalid_subscription' })
        } catch (reason) {
          outcomes[i] = { status: 'rejected', reason }
        }
      } else sendable.push(i)
    }
    // Another job sending a push right now (the same event published twice) keeps it: it is that job's.
    const taken = await claims.takeAll(
      sendable.map((i) => pushes[i]!.deliveryId),
      holder,
    )
    const ours = sendable.filter((_, k) => taken[k])
    if (ours.length < sendable.length)
      deliveries.inc({ outcome: 'claimed_elsewhere' }, sendable.length - ours.length)
    const ids = ours.map((i) => pushes[i]!.deliveryId)
    try {
      const sent = await acknowledgedAmong(db, ids)
      const settled = await Promise.allSettled(
        ours.map(async (i) => {
          const { subscription, event, deliveryId } = pushes[i]!
          if (sent.has(deliveryId)) deliveries.inc({ outcome: 'already_sent' })
          else await sendOnce(subscription!, event, deliveryId)
        }),
      )
      ours.forEach((i, k) => (outcomes[i] = settled[k]!))
    } finally {
      await claims.releaseAll(ids, holder)
    }
    return outcomes
  }

  async function sendOnce(subscription: SubscriptionRow, event: NotificationCreated, deliveryId: string) {
    let response
    try {
      response = await sender.send(subscription, pushPayload(event, subscription.access_token))
    } catch (err) {
      if (err instanceof PrivateAddressError) {
        deliveries.inc({ outcome: 'refused_address' })
        throw new UnrecoverableError(err.message) // no retry: the address will not become public
      }
      deliveries.inc({ outcome: 'network_error' })
      throw new RetryablePushError(0, 0, (err as Error).message)
    }
    const { status } = response
    if (status >= 200 && status < 300) {
      await acknowledge(deliveryId)
      deliveries.inc({ outcome: 'delivered' })
      latency.observe((Date.now() - Date.parse(event.createdAt)) / 1000)
      return
    }
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      // The push service says this subscription is gone or wrong (404, 410, 400, 403, 413…).
      await deleteById(db, String(subscription.id))
      return deliveries.inc({ outcome: 'subscription_removed' })
    }
    deliveries.inc({ outcome: 'retry' })
    const retryAfter = response.headers['retry-after']
    throw new RetryablePushError(
      status,
      parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
    )
  }

  /**
   * A notification's pushes, or those of several notifications (`notifications.created`: one activity's, or those
   * the outbox published together), their subscriptions read in one statement (docs/security.md, "Push delivery:
   * nothing lost, nothing twice"): the first attempt of each is made here, with the subscriptions just read, and
   * only one that must be tried again becomes a `push-deliveries` job (its id deterministic, delayed as the backoff
   * says). A fan-out that dies half-way is run again by BullMQ and finds what it had sent in the acknowledgements,
   * so a crash at any instruction loses nothing (issue #9, finding 3).
   */
  async function fanOut(job: Job) {
    const events =
      job.name === JOB_NAMES.notificationCreated
        ? [parseOrFail(notificationCreated, job.data)]
        : job.name === JOB_NAMES.notificationsCreated
          ? parseOrFail(notificationsCreated, job.data).notifications
          : []
    const fresh = events.filter((event) => !isStale(event))
    if (fresh.length < events.length) deliveries.inc({ outcome: 'stale' }, events.length - fresh.length)
    const pushes: Push[] = []
    const subscriptions = await subscriptionsOf(db, [...new Set(fresh.map((event) => event.recipientUserId))])
    for (const event of fresh)
      for (const subscription of subscriptions)
        if (String(subscription.user_id) === event.recipientUserId && isPushable(subscription, event))
          pushes.push({
            subscription,
            event,
            deliveryId: deliveryJobId(event.notificationId, String(subscription.id)),
          })
    const retries: (Push & { err: RetryablePushError })[] = []
    let failure: PromiseRejectedResult | undefined
    // Every push settles before the job does: one that failed for another reason than the push service (Postgres
    // down) fails the job once the others are done, and the job's next run sends what is not acknowledged.
    for (const [i, outcome] of (await pushAll(pushes, `fan-out ${job.id}`)).entries()) {
      if (outcome.status === 'fulfilled') continue
      const err: unknown = outcome.reason
      if (err instanceof UnrecoverableError)
        logger.warn({ err, deliveryId: pushes[i]!.deliveryId }, 'push refused for good')
      else if (err instanceof RetryablePushError) retries.push({ ...pushes[i]!, err })
      else failure ??= outcome
    }
    if (failure) throw failure.reason
    if (config.PUSH_DELIVERY_ATTEMPTS < 2 || !retries.length) return
    await queues.deliveries.addBulk(
      retries.map(({ subscription, event, deliveryId, err }) => ({
        name: DELIVERY_JOB_NAME,
        data: { subscriptionId: String(subscription!.id), event, attemptsBefore: 1 },
        opts: {
          jobId: deliveryId,
          delay: backoffStrategy(1, 'push', err),
          attempts: config.PUSH_DELIVERY_ATTEMPTS - 1,
          backoff: { type: 'push' },
          removeOnComplete: COMPLETED_JOB_RETENTION,
          removeOnFail: { age: 7 * 24 * 3600 },
        },
      })),
    )
  }

  /** A push tried again: the subscription is read afresh. */
  async function deliver(job: Job) {
    const { subscriptionId, event } = parseOrFail(deliveryJob, job.data)
    if (isStale(event)) return deliveries.inc({ outcome: 'stale' })
    const pushes = [{ subscription: await findById(db, subscriptionId), event, deliveryId: String(job.id) }]
    const [outcome] = await pushAll(pushes, `retry ${job.id}`)
    if (outcome!.status === 'rejected') throw outcome!.reason
  }

  async function onAccountEvent(job: Job) {
    const event = parseOrFail(accountEvent, { event: job.name, ...job.data })
    if (event.event === 'token.revoked') await deleteByToken(db, event.tokenId)
    else await deleteByUser(db, event.userId)
  }

  const databaseDown = () =>
    db.raw('select 1').then(
      () => false,
      () => true,
    )

  let workers: Worker[] = []
  let forgetting: NodeJS.Timeout | undefined
  const app = createApp({
    logger,
    metrics,
    readiness: {
      postgres: () => db.raw('select 1'),
      redis: () => connection.ping(),
      workers: async () => {
        if (!workers.length || workers.some((w) => !w.isRunning())) throw new Error('workers are not running')
      },
    },
  })
  finishApp(app)

  const service = lifecycle({
    app,
    logger,
    host: config.BIND_HOST,
    afterStart() {
      const worker = (queue: string, process: (job: Job) => Promise<unknown>, concurrency: number) => {
        const w = new Worker(queue, waitingOutOutages(process, databaseDown), {
          connection,
          prefix,
          concurrency,
          settings: { backoffStrategy },
          lockDuration: config.PUSH_WORKER_LOCK_MS,
          stalledInterval: config.PUSH_WORKER_LOCK_MS,
          // A job whose worker died is run again, not failed (BullMQ's default fails it at its second stall, which
          // lost a push when the worker died twice during one job): fan-out and delivery are idempotent.
          maxStalledCount: 10,
        })
        w.on('failed', (job, err) =>
          logger.warn({ err, jobId: job?.id, queue, attempts: job?.attemptsMade }, 'push job failed'),
        )
        w.on('error', (err) => logger.error({ err, queue }, 'push worker error'))
        return w
      }
      workers = [
        worker(config.PUSH_NOTIFICATIONS_QUEUE, fanOut, config.PUSH_FANOUT_CONCURRENCY),
        worker(config.PUSH_DELIVERIES_QUEUE, deliver, config.PUSH_DELIVERY_CONCURRENCY),
        worker(config.PUSH_ACCOUNT_EVENTS_QUEUE, onAccountEvent, config.PUSH_FANOUT_CONCURRENCY),
      ]
      forgetting = setInterval(
        () =>
          void forgetAcknowledgements(db, PUSH_TTL_SECONDS * 1000).catch((err) =>
            logger.warn({ err }, 'could not forget old push acknowledgements; will retry'),
          ),
        FORGET_EVERY_MS,
      )
      forgetting.unref()
    },
    async close() {
      clearInterval(forgetting)
      // `close()` waits for the jobs in progress to finish before resolving.
      await Promise.all(workers.map((w) => w.close()))
      await Promise.all(Object.values(queues).map((q) => q.close()))
      sender.close()
      await db.destroy()
      await connection.quit()
    },
  })

  /** Resolves once no push job is waiting, delayed or running (tests; also handy in operations). */
  async function idle(timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const counts = await Promise.all(
        Object.values(queues).map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized')),
      )
      if (counts.every((c) => Object.values(c).every((n) => n === 0))) return
      if (Date.now() > deadline) throw new Error(`push queues still busy: ${JSON.stringify(counts)}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }

  // Object.assign keeps `service.url` a live getter (a spread would copy it before start()).
  return Object.assign(service, { db, metrics, queues, idle })
}

export type PushWorker = Awaited<ReturnType<typeof createPushWorker>>
