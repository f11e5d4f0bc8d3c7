import type { Knex } from '@roost/db'
import { isUnavailable } from '@roost/service'

/** How long a delivery the push service accepted waits for Postgres to record it before giving up. */
const ACKNOWLEDGE_PATIENCE_MS = 10 * 60 * 1000
const ACKNOWLEDGE_RETRY_MS = 1000

/**
 * The push service's acknowledgements (docs/security.md, "Push delivery: nothing lost, nothing twice"): a
 * delivery (`<notification>-<subscription>`) is recorded once the push service has accepted it, before its job
 * completes, and a delivery already recorded is not sent again, whether its job was retried after a crash,
 * queued again by a replayed fan-out, or published again after Redis lost its data.
 */
export async function acknowledgedAmong(db: Knex, deliveryIds: string[]): Promise<Set<string>> {
  if (!deliveryIds.length) return new Set()
  const rows: { delivery_id: string }[] = await db('acknowledged_pushes')
    .whereIn('delivery_id', deliveryIds)
    .select('delivery_id')
  return new Set(rows.map((r) => r.delivery_id))
}

/**
 * Records the deliveries the push service has accepted, as they come: a delivery's record goes out at once when
 * no insert is in flight, else with every other that came meanwhile in the next insert (a group commit, as
 * Postgres does with WAL flushes). Each caller still waits only until its own record is committed, so the time
 * between the push service's answer and its record stays at most two inserts long (docs/security.md), and a
 * fan-out of ten pushes answered together costs a few inserts instead of ten (docs/performance.md, "Write path").
 */
export function createAcknowledger(db: Knex): (deliveryId: string) => Promise<void> {
  let waiting: { deliveryId: string; done: () => void; failed: (err: unknown) => void }[] = []
  let writing = false
  async function write() {
    writing = true
    while (waiting.length) {
      const batch = waiting
      waiting = []
      try {
        await acknowledgeAll(
          db,
          batch.map((w) => w.deliveryId),
        )
        for (const w of batch) w.done()
      } catch (err) {
        for (const w of batch) w.failed(err)
      }
    }
    writing = false
  }
  return (deliveryId) =>
    new Promise<void>((done, failed) => {
      waiting.push({ deliveryId, done, failed })
      if (!writing) void write()
    })
}

/**
 * One insert of acknowledgements. A push is out by then, so a Postgres outage at this moment is waited out here
 * rather than failing the job, whose retry would send the push again.
 */
async function acknowledgeAll(db: Knex, deliveryIds: string[]): Promise<void> {
  const deadline = Date.now() + ACKNOWLEDGE_PATIENCE_MS
  for (;;) {
    try {
      // Committed without waiting for its WAL flush (synchronous_commit off for this one statement's transaction):
      // docs/security.md, "Push delivery: nothing lost, nothing twice".
      await db.raw(
        `WITH async AS (SELECT set_config('synchronous_commit', 'off', true))
         INSERT INTO acknowledged_pushes (delivery_id)
         SELECT id FROM async, jsonb_array_elements_text(?::jsonb) AS id ON CONFLICT (delivery_id) DO NOTHING`,
        [JSON.stringify(deliveryIds)],
      )
      return
    } catch (err) {
      if (!isUnavailable(err) || Date.now() > deadline) throw err
      await new Promise((resolve) => setTimeout(resolve, ACKNOWLEDGE_RETRY_MS))
    }
  }
}

/** Forgets acknowledgements older than a push is worth sending: such a notification is never pushed again. */
export async function forgetAcknowledgements(db: Knex, olderThanMs: number): Promise<number> {
  return db('acknowledged_pushes')
    .where('acknowledged_at', '<', new Date(Date.now() - olderThanMs))
    .delete()
}
