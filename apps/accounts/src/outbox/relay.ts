import type { Redis } from 'ioredis'
import type { Knex } from '@roost/db'
import { listen } from '@roost/db'
import type { Producers } from '@roost/events'
import type { Logger } from '@roost/service'
import { OUTBOX_CHANNEL } from './outbox'
import type { OutboxRow } from '../db/rows'

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
   * LOCKED) saves the round trip of a separate SELECT. The marks commit without waiting for their WAL flush
   * (`synchronous_commit` off for this transaction): a mark lost to a Postgres crash leaves its rows unpublished,
   * and they are published again under the same job ids, as after a crash between publishing and marking.
   */
  async function publishBatch(): Promise<number> {
    return db.transaction(async (trx) => {
      const { rows }: { rows: OutboxRow[] } = await trx.raw(
        `WITH async AS (SELECT set_config('synchronous_commit', 'off', true))
         UPDATE outbox SET published_at = now() FROM async
          WHERE id IN (SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)
          RETURNING id, payload`,
        [BATCH],
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
