import { createHmac } from 'node:crypto'
import type { Queue } from 'bullmq'
import type { Knex } from '@roost/db'
import { processor, webhookJob, webhookJobOptions } from '@roost/events'
import type { WebhookEvent } from '@roost/events'
import type { OutboundClient } from '@roost/service'
import { adminAccounts, renderAdminAccount } from '../api/v1/admin/accounts'
import { renderAdminReports } from '../api/v1/admin/reports'
import type { AccountsWorkerConfig } from '../config'
import type { AccountsContext } from '../context'
import type { AdminAccountRow, ReportRow, StatusRow } from '../db/rows'
import { urlsOf } from '../entities/account'
import { renderStatuses } from '../entities/status'

/**
 * Admin webhooks (docs/moderation.md, "Webhooks"), as Mastodon's TriggerWebhookWorker and Webhooks::DeliveryWorker:
 * `webhook.triggered` renders the object once (Admin::Account, Admin::Report or Status, as the event's entity) and
 * adds one `webhook.delivery` per enabled webhook subscribed to the event; a delivery POSTs
 * `{"event", "created_at", "object"}` signed with the webhook's secret (`X-Hub-Signature: sha256=<hex HMAC-SHA256
 * of the body>`) through the outbound client (its address guard: no private addresses unless
 * FEDERATION_ALLOW_HTTP, as federation), and is retried by the queue until the receiver answers 2xx.
 */

interface WebhookRow {
  id: string
  url: string
  events: string[]
  secret: string
  enabled: boolean
}

type Config = Pick<AccountsWorkerConfig, 'PUBLIC_URL'> & Partial<AccountsWorkerConfig>

/** The event's object as Mastodon's webhook payload shows it; undefined when it is gone (nothing is sent). */
async function renderObject(d: { db: Knex; config: Config }, type: WebhookEvent, objectId: string) {
  const ctx = d as unknown as Pick<AccountsContext, 'db' | 'config'>
  if (type.startsWith('account.')) {
    const row: AdminAccountRow | undefined = await adminAccounts(d.db).where('accounts.id', objectId).first()
    return row ? renderAdminAccount(row, ctx) : undefined
  }
  if (type.startsWith('report.')) {
    const row: ReportRow | undefined = await d.db('reports').where({ id: objectId }).first()
    return row ? (await renderAdminReports(ctx, [row], String(row.account_id)))[0] : undefined
  }
  // Statuses: local ones only, as Mastodon's Status triggers its webhooks only for its own.
  const row: StatusRow | undefined = await d
    .db('statuses')
    .join('accounts', 'accounts.id', 'statuses.account_id')
    .whereNull('accounts.domain')
    .where('statuses.id', objectId)
    .first('statuses.*')
  return row ? (await renderStatuses(d.db, urlsOf(d.config), [row]))[0] : undefined
}

export const signature = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`

export function webhooksProcessor(d: { db: Knex; config: Config; client: OutboundClient; queue: Queue }) {
  return processor({
    schema: webhookJob,
    async process(job, bullJob) {
      if (job.event === 'webhook.triggered') {
        const hooks: WebhookRow[] = await d
          .db('webhooks')
          .where({ enabled: true })
          .whereRaw('? = ANY(events)', [job.type])
          .select('id')
        if (!hooks.length) return
        const object = await renderObject(d, job.type, job.objectId)
        if (!object) return
        const body = JSON.stringify({ event: job.type, created_at: job.at, object })
        // Each its own job (and retries): one receiver down does not hold the others back.
        await d.queue.addBulk(
          hooks.map((h) => ({
            name: 'webhook.delivery',
            data: { event: 'webhook.delivery', webhookId: String(h.id), body },
            // The same deliveries if this job runs again (a crash after adding them): one job each still.
            opts: { ...webhookJobOptions, jobId: `${bullJob.id}-${h.id}` },
          })),
        )
        return
      }
      // Read again when sent: a webhook disabled, deleted or given a new secret meanwhile.
      const hook: WebhookRow | undefined = await d.db('webhooks').where({ id: job.webhookId }).first()
      if (!hook?.enabled) return
      const res = await d.client.request(
        'POST',
        hook.url,
        {
          'Content-Type': 'application/json',
          'X-Hub-Signature': signature(hook.secret, job.body),
        },
        job.body,
        { discardBody: true, timeoutMs: 15_000 },
      )
      if (res.status < 200 || res.status >= 300)
        throw new Error(`The webhook ${hook.id} answered ${res.status}`)
    },
    concurrency: 2,
    failureLevel: 'info',
  })
}
