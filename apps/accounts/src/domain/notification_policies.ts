import type { Knex } from '@roost/db'
import type { NotificationType } from '@roost/events'
import type { StatusRow } from '../db/rows'
import { addToConversation } from './conversations'

/**
 * Filtered notifications, as Mastodon 4.3+ (docs/discovery.md, "Notification policy and requests"): each account's
 * policy says, for five kinds of sender, whether their notifications are accepted, filtered (stored with
 * `filtered`, kept out of the list, the unread count, streaming and Web Push; mentions gather into one request per
 * sender) or dropped (not stored).
 */

export const POLICY_VALUES = ['accept', 'filter', 'drop'] as const
export type PolicyValue = (typeof POLICY_VALUES)[number]

export const POLICY_FIELDS = [
  'for_not_following',
  'for_not_followers',
  'for_new_accounts',
  'for_private_mentions',
  'for_limited_accounts',
] as const
export type PolicyField = (typeof POLICY_FIELDS)[number]
export type Policy = Record<PolicyField, PolicyValue>

/** Mastodon's defaults: private mentions and limited accounts filtered, the rest accepted. */
export const DEFAULT_POLICY: Policy = {
  for_not_following: 'accept',
  for_not_followers: 'accept',
  for_new_accounts: 'accept',
  for_private_mentions: 'filter',
  for_limited_accounts: 'filter',
}

/** The types a policy applies to (Mastodon's Notification::PROPERTIES `filterable`). */
export const FILTERABLE_TYPES: readonly string[] = [
  'mention',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'quote',
]

/** A sender younger than this is a new account. */
export const NEW_ACCOUNT_DAYS = 30
/** A follower of less than this long does not count as a follower. */
export const NEW_FOLLOWER_DAYS = 3

/** Requests and their notifications are counted up to this (Mastodon's MAX_MEANINGFUL_COUNT). */
export const MAX_MEANINGFUL_COUNT = 100

/** What the facts of one recipient and sender say about a policy (the SQL of `notifyAll`). */
export interface PolicyFacts {
  for_not_following: PolicyValue
  for_not_followers: PolicyValue
  for_new_accounts: PolicyValue
  for_private_mentions: PolicyValue
  for_limited_accounts: PolicyValue
  /** The recipient accepted a request from this sender once. */
  permitted: boolean
  recipient_follows: boolean
  /** The sender has followed the recipient for three days or more. */
  sender_follows_long: boolean
  sender_new: boolean
  sender_silenced: boolean
  /** The sender is staff outranking the recipient (Mastodon's `bypass_block?`). */
  sender_staff: boolean
}

/** SQL columns of `PolicyFacts` for the recipient `accounts` and the sender `sender` (LEFT JOIN `policy`). */
export const POLICY_FACTS_SQL = `
  COALESCE(policy.for_not_following, '${DEFAULT_POLICY.for_not_following}') AS for_not_following,
  COALESCE(policy.for_not_followers, '${DEFAULT_POLICY.for_not_followers}') AS for_not_followers,
  COALESCE(policy.for_new_accounts, '${DEFAULT_POLICY.for_new_accounts}') AS for_new_accounts,
  COALESCE(policy.for_private_mentions, '${DEFAULT_POLICY.for_private_mentions}') AS for_private_mentions,
  COALESCE(policy.for_limited_accounts, '${DEFAULT_POLICY.for_limited_accounts}') AS for_limited_accounts,
  EXISTS (SELECT 1 FROM notification_permissions np
          WHERE np.account_id = accounts.id AND np.from_account_id = sender.id) AS permitted,
  EXISTS (SELECT 1 FROM follows WHERE account_id = sender.id AND target_account_id = accounts.id
          AND created_at <= now() - interval '${NEW_FOLLOWER_DAYS} days') AS sender_follows_long,
  sender.created_at > now() - interval '${NEW_ACCOUNT_DAYS} days' AS sender_new,
  COALESCE((sender_user.role = 'admin' AND users.role <> 'admin')
           OR (sender_user.role = 'moderator' AND users.role = 'user'), false) AS sender_staff`

/**
 * The policy's verdict on one notification (Mastodon's NotifyService DropCondition and FilterCondition, after the
 * blocks and mutes): the first rule that applies, drop before filter. `unsolicitedPrivateMention` is whether it is
 * a mention in a direct status that does not answer a private mention of the sender by the recipient.
 */
export function policyVerdict(
  type: NotificationType,
  facts: PolicyFacts,
  unsolicitedPrivateMention: boolean,
): PolicyValue {
  if (!FILTERABLE_TYPES.includes(type) || facts.permitted) return 'accept'
  if (type === 'mention' && facts.sender_staff) return 'accept'
  const notFollowing = !facts.recipient_follows
  const applies: [PolicyValue, boolean][] = [
    [facts.for_limited_accounts, facts.sender_silenced && notFollowing],
    [facts.for_not_following, notFollowing],
    [facts.for_not_followers, !facts.sender_follows_long],
    [facts.for_new_accounts, facts.sender_new && notFollowing],
    [facts.for_private_mentions, notFollowing && unsolicitedPrivateMention],
  ]
  for (const wanted of ['drop', 'filter'] as const)
    if (applies.some(([value, matches]) => matches && value === wanted)) return wanted
  return 'accept'
}

/**
 * Whether the direct status `statusId` answers a private mention of the sender by the recipient up its thread
 * (Mastodon's `response_to_recipient?`: up to 100 ancestors).
 */
export async function answersRecipient(
  trx: Knex,
  status: { id: string; in_reply_to_id: string | null },
  recipientId: string,
  senderId: string,
): Promise<boolean> {
  if (!status.in_reply_to_id) return false
  const { rows } = await trx.raw<{ rows: { found: boolean }[] }>(
    `WITH RECURSIVE ancestors(id, in_reply_to_id, depth) AS (
         SELECT s.id, s.in_reply_to_id, 0 FROM statuses s WHERE s.id = :id
       UNION ALL
         SELECT s.id, s.in_reply_to_id, ancestors.depth + 1
         FROM ancestors JOIN statuses s ON s.id = ancestors.in_reply_to_id
         WHERE ancestors.depth < 100)
     SELECT EXISTS (
       SELECT 1 FROM ancestors JOIN statuses s ON s.id = ancestors.id
         JOIN mentions m ON m.status_id = s.id AND m.account_id = :sender
       WHERE s.account_id = :recipient AND s.visibility = 'direct') AS found`,
    { id: status.in_reply_to_id, sender: senderId, recipient: recipientId },
  )
  return rows[0]!.found
}

/**
 * Records a filtered mention in its sender's request (Mastodon's `update_notification_request!`): made or moved to
 * this status, its count being the sender's filtered mentions and quotes (up to 100).
 */
export async function noteRequest(trx: Knex, recipientId: string, senderId: string, statusId: string) {
  await trx.raw(
    `INSERT INTO notification_requests (account_id, from_account_id, last_status_id, notifications_count)
     VALUES (:r, :s, :status, 0)
     ON CONFLICT (account_id, from_account_id)
       DO UPDATE SET last_status_id = EXCLUDED.last_status_id, updated_at = now()`,
    { r: recipientId, s: senderId, status: statusId },
  )
  await recount(trx, recipientId, senderId)
}

async function recount(trx: Knex, recipientId: string, senderId: string) {
  await trx.raw(
    `UPDATE notification_requests SET notifications_count = (
       SELECT count(*) FROM (SELECT 1 FROM notifications
         WHERE account_id = :r AND from_account_id = :s AND filtered AND type IN ('mention', 'quote')
         LIMIT ${MAX_MEANINGFUL_COUNT}) AS counted)
     WHERE account_id = :r AND from_account_id = :s`,
    { r: recipientId, s: senderId },
  )
}

/** The account's policy (the defaults when it never changed it). */
export async function policyOf(db: Knex, accountId: string): Promise<Policy> {
  const row: Partial<Policy> | undefined = await db('notification_policies')
    .where({ account_id: accountId })
    .first(...POLICY_FIELDS)
  return { ...DEFAULT_POLICY, ...row }
}

/** Changes some fields of the account's policy; the others keep their value. */
export async function updatePolicy(trx: Knex, accountId: string, changes: Partial<Policy>): Promise<Policy> {
  const current = await policyOf(trx, accountId)
  const next = { ...current, ...changes }
  await trx('notification_policies')
    .insert({ account_id: accountId, ...next })
    .onConflict('account_id')
    .merge({ ...next, updated_at: trx.fn.now() })
  return next
}

/**
 * The policy's `summary`: requests from senders who are not suspended (up to 100) and their notifications
 * (Mastodon's NotificationPolicy#summarize!).
 */
export async function pendingSummary(db: Knex, accountId: string) {
  const { rows } = await db.raw<{ rows: { requests: string; notifications: string }[] }>(
    `SELECT count(*) AS requests, COALESCE(sum(notifications_count), 0) AS notifications FROM (
       SELECT notification_requests.notifications_count FROM notification_requests
         JOIN accounts ON accounts.id = notification_requests.from_account_id
       WHERE notification_requests.account_id = ? AND accounts.suspended_at IS NULL
       LIMIT ${MAX_MEANINGFUL_COUNT}) AS pending`,
    [accountId],
  )
  return {
    pending_requests_count: Number(rows[0]!.requests),
    pending_notifications_count: Number(rows[0]!.notifications),
  }
}

export interface RequestRow {
  id: string
  account_id: string
  from_account_id: string
  last_status_id: string | null
  notifications_count: string
  created_at: Date
  updated_at: Date
}

/**
 * Accepts requests (Mastodon's AcceptNotificationRequestService and UnfilterNotificationsWorker, done at once):
 * the sender is never filtered again, its filtered notifications join the list, its direct mentions the
 * recipient's conversations, and the request is gone. Returns the conversations changed, to stream.
 */
export async function acceptRequests(
  trx: Knex,
  accountId: string,
  requests: RequestRow[],
): Promise<string[]> {
  const changed: string[] = []
  for (const request of requests) {
    await trx('notification_permissions')
      .insert({ account_id: accountId, from_account_id: request.from_account_id })
      .onConflict(['account_id', 'from_account_id'])
      .ignore()
    const direct: StatusRow[] = await trx('notifications')
      .join('statuses', 'statuses.id', 'notifications.status_id')
      .where({
        'notifications.account_id': accountId,
        'notifications.from_account_id': request.from_account_id,
        'notifications.filtered': true,
        'notifications.type': 'mention',
        'statuses.visibility': 'direct',
      })
      .orderBy('statuses.id', 'asc')
      .select('statuses.*')
    for (const status of direct) {
      const conversation = await addToConversation(trx, accountId, status)
      if (conversation) changed.push(conversation)
    }
    await trx('notifications')
      .where({ account_id: accountId, from_account_id: request.from_account_id, filtered: true })
      .update({ filtered: false })
    await trx('notification_requests').where({ id: request.id }).delete()
  }
  return changed
}

/**
 * Dismisses requests (Mastodon's DismissNotificationRequestService and FilteredNotificationCleanupWorker): the
 * request and its sender's filtered notifications are deleted; later ones are filtered again.
 */
export async function dismissRequests(trx: Knex, accountId: string, requests: RequestRow[]) {
  for (const request of requests) {
    await trx('notifications')
      .where({ account_id: accountId, from_account_id: request.from_account_id, filtered: true })
      .delete()
    await trx('notification_requests').where({ id: request.id }).delete()
  }
}
