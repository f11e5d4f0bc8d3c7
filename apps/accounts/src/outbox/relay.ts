import type { Redis } from 'ioredis'
import type { Knex } from '@roost/db'
import { listen } from '@roost/db'
import type { Producers } from '@roost/events'
import type { Logger } from '@roost/service'
import { OUTBOX_CHANNEL } from './outbox'
import type { OutboxPublisher } from './outbox'
import type { OutboxRow } from '../db/rows'
import { bigintArray } from '../queries/sql'

const BATCH = 500
/** The fallback when a NOTIFY is missed (the listener reconnecting): pending rows wait at most this long. */
const POLL_MS = 2000
/** Published rows are kept a day (to look into), then deleted an hour at a time. */
const KEEP_MS = 24 * 3600 * 1000
const PRUNE_EVERY_MS = 3600 * 1000
/** Events published this recently are published again when Redis is found to have lost its queues. */
export const REPLAY_WINDOW_MS = 15 * 60 * 1000
/** The relay looks for the queues' marker before a batch at most this often (a Redis round trip each time). */
const QUEUES_CHECK_EVERY_MS = 1000
/**
 * Rows their writer publishes itself (`direct`, `publishingTransaction`) are the relay's only once this old: the
 * writer crashed or could not reach Redis.
 */
export const DIRECT_GRACE_MS = 5000

/** The smallest snowflake id of a moment (ids are milliseconds << 16 | sequence). */
const snowflakeAt = (ms: number) => String(BigInt(ms) << 16n)

/**
 * The outbox relay (docs/activities.md): moves unpublished outbox rows to BullMQ and marks them published. The
 * job id is the outbox row id, so a row published twice (a crash between publishing and marking) is still one
 * job. It runs in the accounts worker, woken by the NOTIFY each outbox insert sends at commit, with a slow poll
 * as a fallback; several workers share the rows through SKIP LOCKED.
 */
export function createOutboxRelay(options: {
  db: Knex
  producers: Producers
  logger: Logger
  /** Where the queues live, and the marker that says they still hold what was published. */
  redis: Redis
  redisPrefix: string
  /** LISTEN for prompt wake-ups; without it the relay only polls (and `flush` publishes at once). */
  databaseUrl?: string
  onPublished?: (count: number) => void
}) {
  const { db, producers, logger } = options
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let listener: { close(): Promise<void> } | undefined
  let stopped = true
  let again = false
  let prunedAt = 0
  let queuesCheckedAt = 0

  const queuesMarker = `${options.redisPrefix}:outbox:queues-intact`

  /**
   * Redis coming back without its data (restarted empty, failed over to an empty replica) has lost the jobs it
   * held: events published but not yet handled, and their follow-up jobs. The marker, written after each
   * replay, is gone with them; then the events of the last REPLAY_WINDOW_MS are marked unpublished and go out
   * again under their own job ids. Consumers are idempotent, so what had been handled is handled again to no
   * effect (docs/activities.md, "When Redis loses its data"). Several relays may replay at once: harmless. The
   * marker is looked for at most once a second, not before every batch: what is published in between to a Redis
   * that lost its data is published again by the replay, to no effect.
   */
  async function replayIfQueuesLost() {
    if (Date.now() - queuesCheckedAt < QUEUES_CHECK_EVERY_MS) return
    if (await options.redis.exists(queuesMarker)) {
      queuesCheckedAt = Date.now()
      return
    }
    const replayed = await db('outbox')
      .where('published_at', '>', new Date(Date.now() - REPLAY_WINDOW_MS))
      .update({ published_at: null })
    await options.redis.set(queuesMarker, new Date().toISOString())
    queuesCheckedAt = Date.now()
    if (replayed) logger.warn({ replayed }, 'Redis lost its queues: publishing recent events again')
  }

  /**
   * Marks a batch published and publishes it in one transaction: the marks commit only once BullMQ holds the
   * jobs, and a failure to publish rolls them back. Marking first (`UPDATE … RETURNING` of rows locked with SKIP
   * LOCKED) saves the round trip of a separate SELECT. Rows their writer publishes itself wait DIRECT_GRACE_MS.
   */
  async function publishBatch(): Promise<number> {
    return db.transaction(async (trx) => {
      const { rows }: { rows: OutboxRow[] } = await trx.raw(
        `UPDATE outbox SET published_at = now()
          WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL
                         AND (NOT direct OR created_at < now() - make_interval(secs => ?))
                       ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
          RETURNING id, payload`,
        [DIRECT_GRACE_MS / 1000, BATCH],
      )
      if (!rows.length) return 0
      rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)) // RETURNING keeps no order; events go in id order
      await producers.publish(rows.map((r) => ({ event: r.payload, jobId: `outbox-${r.id}` })))
      options.onPublished?.(rows.length)
      return rows.length
    })
  }

  async function prune() {
    if (Date.now() - prunedAt < PRUNE_EVERY_MS) return
    prunedAt = Date.now()
    await db('outbox')
      .where('id', '<', snowflakeAt(Date.now() - KEEP_MS))
      .whereNotNull('published_at')
      .delete()
  }

  async function drain() {
    do {
      again = false
      try {
        await replayIfQueuesLost()
        while ((await publishBatch()) === BATCH);
        await prune()
      } catch (err) {
        logger.warn({ err }, 'outbox relay could not publish; will retry')
        return
      }
    } while (again)
  }

  function tick() {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = drain().finally(() => {
      running = undefined
      schedule()
    })
  }

  function schedule() {
    if (stopped) return
    clearTimeout(timer)
    timer = setTimeout(tick, POLL_MS)
  }

  return {
    start() {
      stopped = false
      if (options.databaseUrl && !listener)
        listener = listen(options.databaseUrl, OUTBOX_CHANNEL, tick, (err) =>
          logger.warn({ err }, 'outbox listener lost its connection; reconnecting'),
        )
      tick()
    },
    /** Stops relaying; a batch in progress finishes first. */
    async stop() {
      stopped = true
      clearTimeout(timer)
      await listener?.close()
      listener = undefined
      await running
    },
    /** Resolves once every row committed so far is published (tests, the CLI). */
    async flush() {
      await running
      await drain()
    },
  }
}

export type OutboxRelay = ReturnType<typeof createOutboxRelay>

/**
 * A writer's publications start at most this often: rows that come meanwhile wait and go out together. A push
 * fan-out job costs the push worker mostly per job, so under load the notifications of several activities must
 * share one (`mergeNotifications`), as they shared a relay batch; an idle publisher publishes at once.
 */
const PUBLISH_EVERY_MS = 20

/**
 * Publishes the outbox rows of this process's own just-committed transactions (`publishingTransaction`,
 * docs/activities.md, "Published by their writer"), then marks them published. Rows that come while a
 * publication is in flight, or within PUBLISH_EVERY_MS of the last one's start, go out together in the next one,
 * so under load the notifications of several activities make one push fan-out job (`mergeNotifications`). The mark commits
 * without waiting for its WAL flush: a mark lost to a crash only publishes its rows again under the same job ids,
 * as a crash between publishing and marking always could. A failure to publish or mark is logged, not thrown:
 * the rows stay unpublished and the relay takes them after DIRECT_GRACE_MS.
 */
export function createOutboxPublisher(options: {
  db: Knex
  producers: Producers
  logger: Logger
  onPublished?: (count: number) => void
}): OutboxPublisher & { close(): Promise<void> } {
  const { db, producers, logger } = options
  let waiting: { rows: OutboxRow[]; done: () => void }[] = []
  let publishing = false
  let startedAt = 0
  async function publishWaiting() {
    publishing = true
    while (waiting.length) {
      const wait = startedAt + PUBLISH_EVERY_MS - Date.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      startedAt = Date.now()
      const batch = waiting
      waiting = []
      const rows = batch.flatMap((w) => w.rows).sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
      try {
        await producers.publish(rows.map((r) => ({ event: r.payload, jobId: `outbox-${r.id}` })))
        options.onPublished?.(rows.length)
        await db.raw(
          `WITH async AS (SELECT set_config('synchronous_commit', 'off', true))
           UPDATE outbox SET published_at = now() FROM async WHERE id = ANY (?::bigint[]) AND published_at IS NULL`,
          [bigintArray(rows.map((r) => r.id))],
        )
      } catch (err) {
        logger.warn({ err, rows: rows.length }, 'outbox rows not published by their writer; the relay will')
      }
      for (const w of batch) w.done()
    }
    publishing = false
  }
  let idle = Promise.resolve()
  return {
    publish(rows) {
      const published = new Promise<void>((done) => waiting.push({ rows, done }))
      if (!publishing) idle = publishWaiting()
      return published
    },
    /** Resolves once everything handed over so far is published (a graceful stop, before Redis closes). */
    async close() {
      await idle
    },
  }
}
