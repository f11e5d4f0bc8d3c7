import type { Knex } from '@roost/db'
import { adminEvent } from '../domain/webhooks'
import type { Consumer } from './consumer'

/**
 * The admin webhooks' events that are activities already (docs/moderation.md, "Webhooks"): a local status posted
 * or edited, a report made, a local profile changed. Each becomes a `webhook.triggered` job when a webhook wants it;
 * which events are wanted comes from Redis (`wanted`, wantedWebhookEvents), not the database.
 */
export function webhooksConsumer(db: Knex, wanted: () => Promise<Set<string>>): Consumer {
  return {
    'status.created': async (a) => adminEvent(db, 'status.created', a.statusId, await wanted()),
    'status.updated': async (a) => adminEvent(db, 'status.updated', a.statusId, await wanted()),
    'report.created': async (a) => adminEvent(db, 'report.created', a.reportId, await wanted()),
    'account.updated': async (a) => adminEvent(db, 'account.updated', a.accountId, await wanted()),
  }
}
