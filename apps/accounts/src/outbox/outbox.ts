import type { Knex } from '@roost/db'
import type { OutboxEvent } from '@roost/events'
import { outboxEvent, queueOf } from '@roost/events'

/** The channel an outbox insert NOTIFYs at commit (a trigger, see the activities migration). */
export const OUTBOX_CHANNEL = 'outbox'

/**
 * Writes events in the caller's transaction (docs/activities.md): they exist exactly when the change they
 * describe does. Each is validated against its schema first, so a malformed event fails the change, not a
 * worker later. The relay in the accounts worker publishes them after commit.
 */
export async function add(trx: Knex, ...events: OutboxEvent[]) {
  if (!events.length) return
  await trx('outbox').insert(
    events.map((e) => {
      const event = outboxEvent.parse(e)
      return { queue: queueOf(event.event), job_name: event.event, payload: JSON.stringify(event) }
    }),
  )
}
