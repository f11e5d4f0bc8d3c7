import type { AccountEvent, NotificationCreated, Producers } from '@roost/events'
import type { Knex } from '@roost/db'
import type { Logger } from '@roost/service'

export type OutboxEvent =
  { kind: 'notification'; payload: NotificationCreated } | { kind: 'account-event'; payload: AccountEvent }

interface OutboxRow {
  id: string
  queue: string
  job_name: string
  payload: NotificationCreated | AccountEvent
}

/**
 * The transactional outbox (shared design.md, "Events"): `add` writes an event in the caller's transaction;
 * the relay moves unpublished rows to BullMQ and marks them published. The BullMQ job id is the outbox row id,
 * so a row published twice (a crash between add and mark) is still one job: at-least-once becomes exactly-once.
 */
export function createOutboxRelay(options: {
  db: Knex
  producers: Producers
  logger: Logger
  intervalMs?: number
}) {
  const { db, producers, logger } = options
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let stopped = true
  let again = false

  async function publishBatch(): Promise<number> {
    return db.transaction(async (trx) => {
      const rows: OutboxRow[] = await trx('outbox')
        .whereNull('published_at')
        .orderBy('id')
        .limit(100)
        .forUpdate()
        .skipLocked()
      for (const row of rows) {
        const jobId = `outbox-${row.id}`
        if (row.queue === 'notifications')
          await producers.notificationCreated(row.payload as NotificationCreated, jobId)
        else await producers.accountEvent(row.payload as AccountEvent, jobId)
      }
      if (rows.length)
        await trx('outbox')
          .whereIn(
            'id',
            rows.map((r) => r.id),
          )
          .update({ published_at: trx.fn.now() })
      return rows.length
    })
  }

  async function drain() {
    do {
      again = false
      try {
        while ((await publishBatch()) === 100);
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
    timer = setTimeout(tick, options.intervalMs ?? 500)
  }

  return {
    /** Writes an event inside the caller's transaction. Call `wake()` after commit for prompt delivery. */
    async add(trx: Knex, event: OutboxEvent) {
      const [queue, jobName] =
        event.kind === 'notification'
          ? ['notifications', 'notification.created']
          : ['account-events', event.payload.event]
      await trx('outbox').insert({ queue, job_name: jobName, payload: JSON.stringify(event.payload) })
    },
    /** Publishes pending rows now rather than at the next interval. */
    wake() {
      tick()
    },
    start() {
      stopped = false
      tick()
    },
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
    },
    /** Resolves once every row written so far is published (tests and graceful shutdown). */
    async flush() {
      await running
      await drain()
    },
  }
}

export type OutboxRelay = ReturnType<typeof createOutboxRelay>
