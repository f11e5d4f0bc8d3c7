import type { Knex } from '@roost/db'
import type { WebhookEvent } from '@roost/events'
import * as outbox from '../outbox/outbox'

/**
 * Tells the admin webhooks (docs/moderation.md, "Webhooks") that `type` happened to the object `objectId`, in the
 * caller's transaction: the accounts worker renders the object and sends it to every enabled webhook subscribed
 * to the event (worker/webhooks.ts), never the request. Nothing is queued while no webhook wants the event.
 */
export async function adminEvent(trx: Knex, type: WebhookEvent, objectId: string) {
  const wanted = await trx('webhooks')
    .where({ enabled: true })
    .whereRaw('? = ANY(events)', [type])
    .first('id')
  if (!wanted) return
  await outbox.add(trx, { event: 'webhook.triggered', type, objectId, at: new Date().toISOString() })
}
