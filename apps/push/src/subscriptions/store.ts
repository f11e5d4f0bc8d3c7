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
 * Replaces the token's subscription by the new one, atomically. Only the token's own: another token's row with
 * the same endpoint stays (an endpoint is a capability of the device that created it; naming it must not take
 * it over, docs/security.md). An advisory lock per token serialises concurrent POSTs of one token; a unique
 * violation that still slips through is retried, never answered with a 500.
 */
export async function replaceSubscription(db: Knex, sub: NewSubscription): Promise<SubscriptionRow> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (trx) => {
        await trx.raw('select pg_advisory_xact_lock(2, hashtext(?))', [sub.tokenId])
        await trx('subscriptions').where('access_token_id', sub.tokenId).delete()
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

/** The users' subscriptions (whether a notification is pushed to one is `isPushable`'s to say). */
export const subscriptionsOf = async (db: Knex, userIds: string[]) =>
  (await db('subscriptions').whereIn('user_id', userIds)) as SubscriptionRow[]

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
