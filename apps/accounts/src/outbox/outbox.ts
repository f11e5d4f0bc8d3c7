import type { Knex } from '@roost/db'
import type { OutboxEvent } from '@roost/events'
import { outboxEvent, queueOf } from '@roost/events'
import type { OutboxRow } from '../db/rows'

/** The channel an outbox insert NOTIFYs at commit (a trigger, see the activities migration). */
export const OUTBOX_CHANNEL = 'outbox'

/** The rows each open `publishingTransaction` wrote, published by its caller once it commits. */
const written = new WeakMap<Knex, OutboxRow[]>()

/**
 * Writes events in the caller's transaction (docs/activities.md): they exist exactly when the change they
 * describe does. Each is validated against its schema first, so a malformed event fails the change, not a
 * worker later. The relay in the accounts worker publishes them after commit, or, in a `publishingTransaction`,
 * the process that wrote them.
 */
export async function add(trx: Knex, ...events: OutboxEvent[]) {
  if (!events.length) return
  const rows = events.map((e) => {
    const event = outboxEvent.parse(e)
    return { queue: queueOf(event.event), job_name: event.event, payload: JSON.stringify(event) }
  })
  const direct = written.get(trx)
  if (!direct) {
    await trx('outbox').insert(rows)
    return
  }
  const inserted: OutboxRow[] = await trx('outbox')
    .insert(rows.map((r) => ({ ...r, direct: true })))
    .returning(['id', 'payload'])
  direct.push(...inserted)
}

/** Publishes outbox rows and marks them published (`createOutboxPublisher` in relay.ts). */
export interface OutboxPublisher {
  /**
   * Resolves once the rows are published; never fails: rows it could not publish are the relay's after
   * DIRECT_GRACE_MS. A caller need not wait: the rows are committed.
   */
  publish(rows: OutboxRow[]): Promise<void>
}

/**
 * Runs `work` in a transaction whose outbox rows this process publishes itself as soon as it commits, instead of
 * the relay after a NOTIFY, a second read of the rows and a second commit (docs/activities.md, "Published by their
 * writer"). The rows are in the outbox all the same, committed with the change: a crash or a Redis outage before
 * they are published leaves them to the relay, which takes such rows once they are DIRECT_GRACE_MS old. Without a
 * publisher, an ordinary transaction.
 */
export async function publishingTransaction<T>(
  db: Knex,
  publisher: OutboxPublisher | undefined,
  work: (trx: Knex) => Promise<T>,
): Promise<T> {
  if (!publisher) return db.transaction(work)
  const rows: OutboxRow[] = []
  const result = await db.transaction(async (trx) => {
    written.set(trx, rows)
    return work(trx)
  })
  // Not awaited: the rows are committed, and a publication may wait for company (createOutboxPublisher).
  if (rows.length) void publisher.publish(rows)
  return result
}
