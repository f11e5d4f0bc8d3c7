import { createDatabase } from '@roost/db'
import { createQueueWorkers, createRedis, QUEUES } from '@roost/events'
import {
  createAddressGuard,
  createApp,
  createLogger,
  createMetrics,
  finishApp,
  lifecycle,
} from '@roost/service'
import type { PushConfig } from './config'
import { forgetAcknowledgements } from './delivery/acknowledgements'
import { createPushClaims } from './delivery/claims'
import { fanOutProcessor } from './delivery/fan-out'
import { createPusher } from './delivery/pushes'
import { pushBackoff, retriesProcessor } from './delivery/retry'
import { createPushSender, PUSH_TTL_SECONDS } from './delivery/sender'
import { SCHEMA } from './service'
import { accountEventsProcessor } from './subscriptions/account-events'

/** How often acknowledgements older than a push's life are deleted. */
const FORGET_EVERY_MS = 3600 * 1000

/**
 * The push workers (docs/architecture.md, "Events"): fan-out of `notification.created` into one delivery job per
 * subscription, delivery of encrypted Web Push messages, and clean-up on account events. An HTTP server on
 * PUSH_WORKER_PORT answers /health/live, /health/ready and /metrics.
 */
export async function createPushWorker(config: PushConfig) {
  const logger = createLogger('push-worker', config.LOG_LEVEL)
  const db = createDatabase(config.DATABASE_URL, SCHEMA, undefined, {
    preparedStatements: config.PREPARED_STATEMENTS,
  })
  const connection = createRedis(config.REDIS_URL, { forWorker: true })
  const metrics = createMetrics('push-worker')
  const backoff = pushBackoff(config.PUSH_RETRY_BASE_MS)
  const workers = createQueueWorkers({
    process: 'push-worker',
    connection,
    redisPrefix: config.REDIS_PREFIX,
    names: {
      [QUEUES.notifications]: config.PUSH_NOTIFICATIONS_QUEUE,
      [QUEUES.pushDeliveries]: config.PUSH_DELIVERIES_QUEUE,
      [QUEUES.accountEvents]: config.PUSH_ACCOUNT_EVENTS_QUEUE,
    },
    database: () => db.raw('select 1'),
    lockMs: config.PUSH_WORKER_LOCK_MS,
    settings: { backoffStrategy: backoff },
    metrics,
    logger,
  })
  const sender = createPushSender(config, createAddressGuard(config.PUSH_ALLOWED_PRIVATE_ADDRESSES))
  // A claim outlives any send and a dead holder's wait for BullMQ to run its job again.
  const claimMs = 2 * (config.PUSH_REQUEST_TIMEOUT_MS + config.PUSH_WORKER_LOCK_MS)
  const claims = createPushClaims(connection, config.REDIS_PREFIX, claimMs)
  const pusher = createPusher({ db, sender, claims, metrics })
  const queues = {
    notifications: workers.queues[QUEUES.notifications],
    deliveries: workers.queues[QUEUES.pushDeliveries],
    accountEvents: workers.queues[QUEUES.accountEvents],
  }
  const processors = {
    [QUEUES.notifications]: fanOutProcessor({
      db,
      pusher,
      retries: queues.deliveries,
      attempts: config.PUSH_DELIVERY_ATTEMPTS,
      backoff,
      logger,
      concurrency: config.PUSH_FANOUT_CONCURRENCY,
    }),
    [QUEUES.pushDeliveries]: retriesProcessor(db, pusher, config.PUSH_DELIVERY_CONCURRENCY),
    [QUEUES.accountEvents]: accountEventsProcessor(db, config.PUSH_FANOUT_CONCURRENCY),
  }

  let forgetting: NodeJS.Timeout | undefined
  const app = createApp({
    logger,
    metrics,
    readiness: { postgres: () => db.raw('select 1'), redis: () => connection.ping(), workers: workers.ready },
  })
  finishApp(app)

  const service = lifecycle({
    app,
    logger,
    host: config.BIND_HOST,
    afterStart() {
      workers.start(processors)
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
      // The workers finish the jobs in progress first.
      await workers.close()
      sender.close()
      await db.destroy()
      await connection.quit()
    },
  })

  // Object.assign keeps `service.url` a live getter (a spread would copy it before start()).
  return Object.assign(service, { db, metrics, queues, idle: workers.idle })
}

export type PushWorker = Awaited<ReturnType<typeof createPushWorker>>
