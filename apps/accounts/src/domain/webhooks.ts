import type { Knex } from '@roost/db'
import type { WebhookEvent } from '@roost/events'
import * as outbox from '../outbox/outbox'

/**
 * Tells the admin webhooks (docs/moderation.md, "Webhooks") that `type` happened to the object `objectId`, in the
 * caller's transaction: the accounts worker renders the object and sends it to every enabled webhook subscribed
 * to the event (worker/webhooks.ts), never the request. Nothing is queued while no webhook wants the event.
 */
/** `known`: the events wanted, when the caller has them already (the activities consumer, from Redis). */
export async function adminEvent(trx: Knex, type: WebhookEvent, objectId: string, known?: Set<string>) {
  const wanted = known
    ? known.has(type)
    : await trx('webhooks').where({ enabled: true }).whereRaw('? = ANY(events)', [type]).first('id')
  if (!wanted) return
  await outbox.add(trx, { event: 'webhook.triggered', type, objectId, at: new Date().toISOString() })
}

/** Where the events some enabled webhook wants are kept for the worker: a JSON array (docs/moderation.md). */
export const webhookEventsKey = (redisPrefix: string) => `${redisPrefix}:webhook_events`

interface KeyValue {
  get(key: string): Promise<string | null>
  set(key: string, value: string): Promise<unknown>
}

/** Writes the events enabled webhooks want, after any change of webhooks (the admin API) and when missing. */
export async function publishWebhookEvents(
  db: Knex,
  kv: KeyValue,
  redisPrefix: string,
): Promise<Set<string>> {
  const rows: string[][] = await db('webhooks').where({ enabled: true }).pluck('events')
  const events = new Set(rows.flat())
  await kv.set(webhookEventsKey(redisPrefix), JSON.stringify([...events]))
  return events
}

/**
 * The events some enabled webhook wants, as the admin API last published them: read from Redis by the activities
 * consumer, so a post costs no database statement for webhooks (docs/performance.md); rebuilt from the table when
 * the key is missing (Redis lost its data).
 */
export async function wantedWebhookEvents(db: Knex, kv: KeyValue, redisPrefix: string): Promise<Set<string>> {
  const raw = await kv.get(webhookEventsKey(redisPrefix))
  if (raw !== null) return new Set(JSON.parse(raw) as string[])
  return publishWebhookEvents(db, kv, redisPrefix)
}
