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

/**
 * A field of an event whose value is known only to the statement that makes the event's row: its SQL over that
 * row (giving the value as text), and a stand-in of the same kind that the event is validated with beforehand.
 */
export interface RowValue {
  sql: string
  standIn: string
}

/** A row's bigint id, as events carry ids: text. */
export const rowId = (column: string): RowValue => ({ sql: `${column}::text`, standIn: '0' })

/** A row's timestamp as `Date#toISOString` writes it (UTC, milliseconds), the events' datetimes. */
export const rowTime = (column: string): RowValue => ({
  sql: `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  standIn: new Date(0).toISOString(),
})

/** An event without the fields the statement fills in from its row (each kind of event's own `Omit`). */
type EventWithout<K extends string, E = OutboxEvent> = E extends unknown ? Omit<E, K> : never

/**
 * `add` as one more data-modifying CTE of the statement that makes the rows the events are about, when an event
 * needs a value of those rows (a new status's id): one round trip instead of two (docs/activities.md, "The outbox
 * and its relay"). Each event is validated as `add` does, with `fromRow`'s stand-ins in place of what the row will
 * give, before the statement runs: a malformed event fails the change. Then it is bound as JSON, and the statement
 * writes one outbox row for each row of the CTE `from` with the `fromRow` fields taken from it: for every row the
 * one event given, or, with `events` by key, the event under the row's `key` (SQL over the row) and none for a row
 * whose key has no event. The outbox's statement trigger fires for a CTE's insert as for any other, so the relay
 * is woken at commit (even when the CTE inserts nothing, which it then finds).
 */
export function insertFor<K extends string>(
  trx: Knex,
  from: { cte: string; key?: string },
  fromRow: Record<K, RowValue>,
  events: EventWithout<K> | Map<string, EventWithout<K>>,
): Knex.Raw {
  const standIns = Object.fromEntries(Object.entries<RowValue>(fromRow).map(([k, v]) => [k, v.standIn]))
  const byKey = events instanceof Map ? events : new Map([['', events]])
  const rows = Object.fromEntries(
    [...byKey].map(([key, e]) => {
      const event = outboxEvent.parse({ ...e, ...standIns })
      return [key, { queue: queueOf(event.event), job_name: event.event, payload: event }]
    }),
  )
  const fields = Object.entries<RowValue>(fromRow).flatMap(([k, v]) => [`'${k}'`, v.sql])
  return trx.raw(
    `INSERT INTO outbox (queue, job_name, payload)
     SELECT e.value->>'queue', e.value->>'job_name', (e.value->'payload') || jsonb_build_object(${fields.join(', ')})
       FROM ${from.cte} JOIN jsonb_each(?::jsonb) AS e ON e.key = ${from.key ?? "''"}`,
    [JSON.stringify(rows)],
  )
}
