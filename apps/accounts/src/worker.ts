import { Counter } from 'prom-client'
import { createDatabase } from '@roost/db'
import { createProducers, createQueueWorkers, createRedis, QUEUES } from '@roost/events'
import {
  createApp,
  createLogger,
  createMetrics,
  createOutboundClient,
  finishApp,
  lifecycle,
} from '@roost/service'
import type { AccountsWorkerConfig } from './config'
import { SCHEMA } from './db/migrations'
import { urlsOf } from './entities/account'
import { createFeedStore } from './feeds/store'
import { createReplica } from './replica'
import { createFederation } from './federation/transport/client'
import { createHostSlots } from './federation/transport/host-slots'
import { createDeliver } from './federation/transport/delivery-queue'
import { refreshStaleAccounts } from './federation/refresh'
import { createOutboxRelay } from './outbox/relay'
import { createStreamingPublisher } from './streaming/publisher'
import { activitiesProcessor, createConsumers } from './worker/activities'
import { webhooksProcessor } from './worker/webhooks'
import { publishWebhookEvents, wantedWebhookEvents } from './domain/webhooks'
import { PRIVATE_RANGES } from './federation/transport/client'
import { createMailer } from './mail/transport'
import { deliveriesProcessor } from './worker/deliveries'
import { inboxProcessor } from './worker/inbox'
import { fetchesProcessor } from './worker/fetches'
import { createBoundedFetch } from './federation/collections'
import { createAsyncRefreshes } from './federation/async-refreshes'
import { distributePollSoon, scheduleMediaCleanup, sweepLostTimers, timersProcessor } from './worker/timers'
import { dailyMediaCleanup } from './media/cleanup'
import { mediaProcessor } from './worker/media'
import { mediaFilesOf } from './media/files'
import { mailProcessor } from './worker/mail'
import { accountDataProcessor, removeExpiredArchives } from './worker/account-data'

/** How often the worker looks for timers that are overdue because their job was lost (a Redis without its data). */
const SWEEP_EVERY_MS = 60_000

/**
 * The accounts worker (docs/activities.md): relays the outbox to BullMQ, and consumes the activities the
 * accounts app records, so that requests only write their rows and events. An HTTP server on
 * ACCOUNTS_WORKER_PORT answers /health/live, /health/ready and /metrics.
 */
export async function createAccountsWorker(config: AccountsWorkerConfig) {
  const logger = createLogger('accounts-worker', config.LOG_LEVEL)
  const db = createDatabase(config.DATABASE_URL, SCHEMA, undefined, {
    preparedStatements: config.PREPARED_STATEMENTS,
  })
  const replica = createReplica(config, db)
  const connection = createRedis(config.REDIS_URL, { forWorker: true })
  const redis = createRedis(config.REDIS_URL)
  const metrics = createMetrics('accounts-worker')
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
    // LISTEN holds a session: straight to Postgres when DATABASE_URL is a pooler (docs/operations.md, "PgBouncer").
    databaseUrl: config.DB_DIRECT_URL ?? config.DATABASE_URL,
    onPublished: (n) => published.inc(n),
  })
  const workers = createQueueWorkers({
    process: 'accounts-worker',
    connection,
    redisPrefix: config.REDIS_PREFIX,
    database: () => db.raw('select 1'),
    lockMs: config.ACCOUNTS_WORKER_LOCK_MS,
    metrics,
    logger,
  })
  const { activities, timers, inbox, deliveries, media, mail, webhooks } = workers.queues
  const files = mediaFilesOf(config)
  const urls = urlsOf(config)
  const feeds = createFeedStore(redis, config.REDIS_PREFIX)
  const streaming = createStreamingPublisher({ db, redis, redisPrefix: config.REDIS_PREFIX, urls, logger })
  const federation = createFederation({ db, config, logger })
  const deliver = createDeliver(federation, deliveries, config.FEDERATION_RETRY_BASE_MS)
  const consumers = createConsumers({
    db,
    urls,
    streaming,
    feeds: {
      db,
      replica,
      store: feeds,
      activeDays: config.USER_ACTIVE_DAYS,
      listener: streaming.feedListener,
    },
    federation,
    deliver,
    pollUpdateSoon: distributePollSoon(timers, config.FEDERATION_POLL_UPDATE_DELAY_MS),
    mediaQueue: media,
    remoteMediaRetryBaseMs: config.REMOTE_MEDIA_RETRY_BASE_MS,
    webhookEvents: () => wantedWebhookEvents(db, redis, config.REDIS_PREFIX),
  })
  const concurrency = config.ACCOUNTS_WORKER_CONCURRENCY
  const mailer = createMailer(config, logger)
  if (!config.SMTP_SERVER)
    logger.warn({ dir: config.MAIL_DIR }, 'no SMTP_SERVER: mail is written to files, not sent')
  // Webhooks go to addresses an admin typed: the same guard as federation's requests (docs/moderation.md).
  const webhookClient = createOutboundClient({
    allowHttp: config.FEDERATION_ALLOW_HTTP,
    allowedPrivateAddresses: config.FEDERATION_ALLOW_HTTP ? PRIVATE_RANGES : '',
    userAgent: `Roost (+${urls.base}/)`,
  })
  const hostSlots = createHostSlots(redis, config.REDIS_PREFIX, config.FEDERATION_HOST_CONCURRENCY)
  const fetchSlots = createHostSlots(
    redis,
    config.REDIS_PREFIX,
    config.FEDERATION_FETCH_HOST_CONCURRENCY,
    'fetch-slots',
  )
  const processors = {
    [QUEUES.activities]: activitiesProcessor({ db, consumers, queue: activities, logger, concurrency }),
    [QUEUES.timers]: timersProcessor({
      db,
      urls,
      streaming,
      logger,
      concurrency,
      minPollExpirationSeconds: config.POLL_MIN_EXPIRATION_SECONDS,
      distributePoll: consumers.federation.distributePoll,
      mediaCleanup: async () => {
        const done = await dailyMediaCleanup(db, files, config.MEDIA_CACHE_RETENTION_PERIOD)
        // Archives are kept a week (docs/security.md, "Your data").
        const archives = await removeExpiredArchives(db, files)
        logger.info({ ...done, archives }, 'media cleanup done')
      },
    }),
    [QUEUES.inbox]: inboxProcessor(db, federation, deliver, concurrency),
    [QUEUES.deliveries]: deliveriesProcessor(federation, hostSlots, metrics, concurrency),
    [QUEUES.media]: mediaProcessor({
      db,
      files,
      federation,
      logger,
      timeoutMs: config.MEDIA_TRANSCODE_TIMEOUT_MS,
    }),
    [QUEUES.fetches]: fetchesProcessor({
      db,
      federation,
      fetch: createBoundedFetch(federation, fetchSlots),
      refreshes: createAsyncRefreshes(redis, config.REDIS_PREFIX),
      backfillStatuses: config.REMOTE_BACKFILL_STATUSES,
      concurrency: config.FEDERATION_FETCH_CONCURRENCY,
    }),
    [QUEUES.mail]: mailProcessor({ db, config, mailer, concurrency }),
    [QUEUES.webhooks]: webhooksProcessor({ db, config, client: webhookClient, queue: webhooks }),
    [QUEUES.accountData]: accountDataProcessor({
      db,
      files,
      federation,
      deliver,
      urls,
      logger,
      followCeiling: { threshold: config.MAX_FOLLOWS_THRESHOLD, ratio: config.MAX_FOLLOWS_RATIO },
    }),
  }
  const sweep = () => sweepLostTimers(db, timers)

  let sweeper: NodeJS.Timeout | undefined
  const app = createApp({
    logger,
    metrics,
    readiness: { postgres: () => db.raw('select 1'), redis: () => redis.ping(), workers: workers.ready },
  })
  finishApp(app)

  const service = lifecycle({
    app,
    logger,
    host: config.BIND_HOST,
    afterStart() {
      // In the background: a worker starting while Redis is away must not wait for it to come back.
      void scheduleMediaCleanup(timers).catch((err) =>
        logger.warn({ err }, 'the daily media cleanup was not scheduled; it will be at the next start'),
      )
      // The admin webhooks' events for the activities consumer, ready before the first activity (a missing key
      // would cost a post a statement: docs/performance.md); in the background, as above.
      void publishWebhookEvents(db, redis, config.REDIS_PREFIX).catch((err) =>
        logger.warn({ err }, 'the webhooks were not published; the first activity will'),
      )
      workers.start(processors)
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
      // Both finish what they are doing first: the relay its batch, the workers their jobs in progress.
      clearInterval(sweeper)
      await relay.stop()
      await workers.close()
      federation.close()
      files.close?.()
      mailer.close()
      webhookClient.close()
      await producers.close()
      if (replica !== db) await replica.destroy()
      await db.destroy()
      await connection.quit().catch(() => connection.disconnect())
      await redis.quit().catch(() => redis.disconnect())
    },
  })

  const { idle, pause, resume } = workers // tests: wait for the queues, hold the workers back a while
  const parts = { db, metrics, relay, activities, timers, inbox, deliveries, media, mail, federation, feeds }
  // Object.assign keeps `service.url` a live getter (a spread would copy it before start()).
  return Object.assign(service, parts, { idle, pause, resume, sweep })
}

export type AccountsWorker = Awaited<ReturnType<typeof createAccountsWorker>>
