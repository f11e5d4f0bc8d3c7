import type { Knex } from '@roost/db'
import { adminEvent } from '../domain/webhooks'
import type { Consumer } from './consumer'

/**
 * The admin webhooks' events that are activities already (docs/moderation.md, "Webhooks"): a local status posted
 * or edited, a report made, a local profile changed. Each becomes a `webhook.triggered` job when a webhook wants it.
 */
export const webhooksConsumer = (db: Knex): Consumer => ({
  'status.created': (a) => adminEvent(db, 'status.created', a.statusId),
  'status.updated': (a) => adminEvent(db, 'status.updated', a.statusId),
  'report.created': (a) => adminEvent(db, 'report.created', a.reportId),
  'account.updated': (a) => adminEvent(db, 'account.updated', a.accountId),
})
