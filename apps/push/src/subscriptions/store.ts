import type { Knex } from '@roost/db'
import type { NotificationType } from '@roost/events'
import type { PUSH_POLICIES } from '@roost/routes'

export type Policy = (typeof PUSH_POLICIES)[number]
export type Alerts = Partial<Record<NotificationType, boolean>>

export interface SubscriptionRow {
  id: string
  endpoint: string
  key_p256dh: string
  key_auth: string
  standard: boolean
  alerts: Alerts
  policy: Policy
  user_id: string
  access_token_id: string
  access_token: string
  created_at: Date
  updated_at: Date
}

export interface NewSubscription {
  endpoint: string
  keyP256dh: string
  keyAuth: string
  standard: boolean
  alerts: Alerts
  policy: Policy
  userId: string
  tokenId: string
  token: string
}

const UNIQUE_VIOLATION = '23505'
const DEADLOCK = '40P01'

/**
 * Stores the token's subscription, replacing its earlier one and every other subscription of the same endpoint,
 * whichever token or user held it, in one transaction: one subscription per endpoint (the unique index
 * `subscriptions_endpoint_unique`) and one per token. The endpoint is a capability URL the push service handed to
 * one device; the newest subscriber owns it (docs/security.md, "One push subscription per endpoint").
 *
 * A delete and an insert, not an `INSERT … ON CONFLICT (endpoint) DO UPDATE`: the new row gets a new id, never the
 * replaced one's. A retry job of the old owner's push names its subscription by id (`<notification>-<subscription>`)
 * and reads it again before sending; with the id kept, it would find the new owner's keys and token and send the
 * old owner's notification, readable, to the new owner. With a new id it finds nothing and sends nothing. An upsert on the endpoint would also
 * leave the token's own earlier row at another endpoint (a second unique index it cannot handle in the same
 * statement).
 *
 * Two transaction-scoped advisory locks, the token's then the endpoint's, serialise every POST that could touch
 * the same rows: two POSTs of one endpoint by different tokens, or of one token with different endpoints. The
 * second waits for the first to commit, and its delete (a new statement, so a new snapshot under READ COMMITTED)
 * sees and removes the first one's row; so parallel POSTs end with one row, never a unique violation answered with
 * a 500. A deadlock between row locks (two tokens swapping endpoints at once) or a unique violation that still
 * slips through is retried.
 */
export async function replaceSubscription(db: Knex, sub: NewSubscription): Promise<SubscriptionRow> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (trx) => {
        await trx.raw('select pg_advisory_xact_lock(2, hashtext(?)), pg_advisory_xact_lock(3, hashtext(?))', [
          sub.tokenId,
          sub.endpoint,
        ])
        await trx('subscriptions')
          .where('endpoint', sub.endpoint)
          .orWhere('access_token_id', sub.tokenId)
          .delete()
        const [row] = await trx('subscriptions')
          .insert({
            endpoint: sub.endpoint,
            key_p256dh: sub.keyP256dh,
            key_auth: sub.keyAuth,
            standard: sub.standard,
            alerts: JSON.stringify(sub.alerts),
            policy: sub.policy,
            user_id: sub.userId,
            access_token_id: sub.tokenId,
            access_token: sub.token,
          })
          .returning('*')
        return row as SubscriptionRow
      })
    } catch (err) {
      const code = (err as { code?: string }).code
      if (attempt < 5 && (code === UNIQUE_VIOLATION || code === DEADLOCK)) continue
      throw err
    }
  }
}

export const findByToken = async (db: Knex, tokenId: string) =>
  (await db('subscriptions').where('access_token_id', tokenId).first()) as SubscriptionRow | undefined

export const findById = async (db: Knex, id: string) =>
  (await db('subscriptions').where('id', id).first()) as SubscriptionRow | undefined

export async function updateData(db: Knex, tokenId: string, data: { alerts: Alerts; policy: Policy }) {
  const [row] = await db('subscriptions')
    .where('access_token_id', tokenId)
    .update({ alerts: JSON.stringify(data.alerts), policy: data.policy, updated_at: db.fn.now() })
    .returning('*')
  return row as SubscriptionRow | undefined
}

export const deleteByToken = (db: Knex, tokenId: string) =>
  db('subscriptions').where('access_token_id', tokenId).delete()
export const deleteByUser = (db: Knex, userId: string) =>
  db('subscriptions').where('user_id', userId).delete()
export const deleteById = (db: Knex, id: string) => db('subscriptions').where('id', id).delete()

/**
 * The subscriptions of the notifications' recipients (whether a notification is pushed to one is `isPushable`'s to
 * say), and which of their deliveries (`<notification>-<subscription>`, delivery/job.ts) are acknowledged already,
 * in one statement: the fan-out's one read before it claims what is left to send (docs/security.md, "Push delivery:
 * nothing lost, nothing twice").
 */
export async function subscriptionsOf(
  db: Knex,
  notifications: { notificationId: string; recipientUserId: string }[],
): Promise<{ subscriptions: SubscriptionRow[]; acknowledged: Set<string> }> {
  if (!notifications.length) return { subscriptions: [], acknowledged: new Set() }
  const { rows } = (await db.raw(
    `SELECT s.*, ARRAY(
       SELECT a.delivery_id FROM unnest(?::text[], ?::bigint[]) AS n(id, user_id)
       JOIN acknowledged_pushes a ON a.delivery_id = n.id || '-' || s.id
       WHERE n.user_id = s.user_id) AS acknowledged
     FROM subscriptions s WHERE s.user_id = ANY(?::bigint[])`,
    [
      notifications.map((n) => n.notificationId),
      notifications.map((n) => n.recipientUserId),
      [...new Set(notifications.map((n) => n.recipientUserId))],
    ],
  )) as { rows: (SubscriptionRow & { acknowledged: string[] })[] }
  const acknowledged = new Set<string>()
  const subscriptions = rows.map(({ acknowledged: ids, ...subscription }) => {
    for (const id of ids) acknowledged.add(id)
    return subscription
  })
  return { subscriptions, acknowledged }
}

/** Mastodon's `pushable?`: the alert for the type is on and the policy admits the sender. */
export function isPushable(
  sub: Pick<SubscriptionRow, 'alerts' | 'policy'>,
  event: { type: NotificationType; recipientFollowsSender: boolean; senderFollowsRecipient: boolean },
): boolean {
  if (sub.alerts[event.type] !== true) return false
  switch (sub.policy) {
    case 'all':
      return true
    case 'followed':
      return event.recipientFollowsSender
    case 'follower':
      return event.senderFollowsRecipient
    default:
      return false
  }
}
