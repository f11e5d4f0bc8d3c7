import type { Knex } from '@roost/db'
import { pushExcerpt } from '@roost/events'
import type { NotificationType } from '@roost/events'
import type { AccountRow, Urls } from '../entities/account'
import { mediaUrl, missingAvatar } from '../entities/account'
import * as outbox from '../outbox/outbox'
import { activeMute } from './relationships'

interface RecipientFacts {
  user_id: string
  locale: string
  suspended_at: Date | null
  blocks: boolean
  mutes: boolean
  mutes_conversation: boolean
  recipient_follows: boolean
  sender_follows: boolean
}

export interface NewNotification {
  type: NotificationType
  recipientId: string
  senderId: string
  statusId?: string
  /** The row that caused it (favourite, follow, request, status): one notification per activity and recipient. */
  activityId: string
}

/**
 * Mastodon's NotifyService, run by the accounts worker only (docs/activities.md), inside its transaction: drops the
 * notification for self-actions (except a poll's end), a suspended or remote recipient, a sender the recipient blocks or muted with
 * notifications, or a status in a thread the recipient muted; otherwise stores it together with its `notification.created` event. A replayed activity finds
 * its notification there already and adds nothing. Returns the new notification's id (undefined when
 * none was made), so the caller can stream it once its transaction has committed.
 */
export async function notify(trx: Knex, urls: Urls, n: NewNotification): Promise<string | undefined> {
  // A poll's end is news to its own author too (Mastodon exempts `poll` from the self-action rule).
  if (n.recipientId === n.senderId && n.type !== 'poll') return undefined
  // The recipient, its user and every relationship fact in one round trip (docs/performance.md, "Write path").
  const { rows } = await trx.raw<{ rows: RecipientFacts[] }>(
    `SELECT users.id AS user_id, users.locale, accounts.suspended_at,
       EXISTS (SELECT 1 FROM blocks WHERE account_id = :r AND target_account_id = :s) AS blocks,
       EXISTS (SELECT 1 FROM mutes WHERE account_id = :r AND target_account_id = :s AND hide_notifications
               AND ${activeMute(trx).toQuery()}) AS mutes,
       (:status::bigint IS NOT NULL AND EXISTS (
          SELECT 1 FROM conversation_mutes JOIN statuses ON statuses.conversation_id = conversation_mutes.conversation_id
          WHERE statuses.id = :status::bigint AND conversation_mutes.account_id = :r)) AS mutes_conversation,
       EXISTS (SELECT 1 FROM follows WHERE account_id = :r AND target_account_id = :s) AS recipient_follows,
       EXISTS (SELECT 1 FROM follows WHERE account_id = :s AND target_account_id = :r) AS sender_follows
     FROM accounts JOIN users ON users.account_id = accounts.id
     WHERE accounts.id = :r`,
    { r: n.recipientId, s: n.senderId, status: n.statusId ?? null },
  )
  const facts = rows[0]
  if (!facts || facts.suspended_at || facts.blocks || facts.mutes || facts.mutes_conversation)
    return undefined
  const sender: AccountRow = await trx('accounts').where({ id: n.senderId }).first()

  const [row] = await trx('notifications')
    .insert({
      account_id: n.recipientId,
      from_account_id: n.senderId,
      type: n.type,
      status_id: n.statusId ?? null,
      activity_id: n.activityId,
    })
    .onConflict(['account_id', 'type', 'activity_id'])
    .ignore()
    .returning(['id', 'created_at'])
  if (!row) return undefined
  const status = n.statusId
    ? await trx('statuses').where({ id: n.statusId }).first('text', 'spoiler_text')
    : undefined
  await outbox.add(trx, {
    event: 'notification.created',
    notificationId: row.id,
    type: n.type,
    recipientUserId: facts.user_id,
    recipientAccountId: n.recipientId,
    recipientLocale: facts.locale,
    senderAccountId: n.senderId,
    senderName: sender.display_name || sender.username,
    senderAvatarUrl: sender.avatar_file ? mediaUrl(urls, sender.avatar_file) : missingAvatar(urls),
    // Statuses and bios are stored as the plain text their authors typed; the push shows 140 characters.
    excerpt: pushExcerpt(status ? status.spoiler_text || status.text : sender.note),
    recipientFollowsSender: facts.recipient_follows,
    senderFollowsRecipient: facts.sender_follows,
    createdAt: new Date(row.created_at).toISOString(),
  })
  return row.id as string
}

/**
 * Takes back the notifications of an activity that was undone (unfollow, a withdrawn or decided follow request,
 * unfavourite, unreblog): Mastodon's notifications are dependent on their activity. A delivered push stays
 * delivered.
 */
export async function withdrawNotifications(
  trx: Knex,
  n: { type: NotificationType; recipientId: string; activityId: string },
) {
  await trx('notifications')
    .where({ account_id: n.recipientId, type: n.type, activity_id: n.activityId })
    .delete()
}
