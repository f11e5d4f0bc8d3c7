import type { Knex } from '@roost/db'
import type { NotificationType } from '@roost/events'
import type { AccountsContext } from '../context'
import type { AccountRow } from '../entities/account'
import { mediaUrl, missingAvatar, urlsOf } from '../entities/account'
import { blocks, follows, mutesConversationOf, mutesNotifications } from './relationships'

export interface NewNotification {
  type: NotificationType
  recipientId: string
  senderId: string
  statusId?: string
}

/** Statuses and bios are stored as the plain text their authors typed: the excerpt only folds whitespace. */
const excerptOf = (text: string) => text.replace(/\s+/g, ' ').trim()

/**
 * Mastodon's NotifyService, inside the caller's transaction: drops the notification for self-actions, a
 * suspended or remote recipient, a sender the recipient blocks or muted with notifications, or a status in a
 * thread the recipient muted; otherwise stores it together with its outbox event. The caller calls `ctx.outbox.wake()` after commit.
 * Returns whether a notification was created.
 */
export async function notify(ctx: AccountsContext, trx: Knex, n: NewNotification): Promise<boolean> {
  if (n.recipientId === n.senderId) return false
  const recipient: AccountRow | undefined = await trx('accounts').where({ id: n.recipientId }).first()
  const user = await trx('users').where({ account_id: n.recipientId }).first('id', 'locale')
  if (!recipient || !user || recipient.suspended_at) return false
  if (await blocks(trx, n.recipientId, n.senderId)) return false
  if (await mutesNotifications(trx, n.recipientId, n.senderId)) return false
  if (n.statusId && (await mutesConversationOf(trx, n.recipientId, n.statusId))) return false
  const sender: AccountRow = await trx('accounts').where({ id: n.senderId }).first()

  const [row] = await trx('notifications')
    .insert({
      account_id: n.recipientId,
      from_account_id: n.senderId,
      type: n.type,
      status_id: n.statusId ?? null,
    })
    .returning(['id', 'created_at'])
  const status = n.statusId
    ? await trx('statuses').where({ id: n.statusId }).first('text', 'spoiler_text')
    : undefined
  const urls = urlsOf(ctx.config.PUBLIC_URL)
  await ctx.outbox.add(trx, {
    kind: 'notification',
    payload: {
      notificationId: row.id,
      type: n.type,
      recipientUserId: user.id,
      recipientAccountId: n.recipientId,
      recipientLocale: user.locale,
      senderAccountId: n.senderId,
      senderName: sender.display_name || sender.username,
      senderAvatarUrl: sender.avatar_file ? mediaUrl(urls, sender.avatar_file) : missingAvatar(urls),
      excerpt: status ? excerptOf(status.spoiler_text || status.text) : excerptOf(sender.note),
      recipientFollowsSender: await follows(trx, n.recipientId, n.senderId),
      senderFollowsRecipient: await follows(trx, n.senderId, n.recipientId),
      createdAt: new Date(row.created_at).toISOString(),
    },
  })
  return true
}

/**
 * Takes back the notification of an activity that was undone (unfollow, a withdrawn or decided follow request,
 * unfavourite, unreblog): Mastodon's notifications are dependent on their activity. A delivered push stays
 * delivered.
 */
export async function withdrawNotification(
  trx: Knex,
  n: {
    type: 'follow' | 'follow_request' | 'favourite' | 'reblog'
    senderId: string
    recipientId?: string
    statusId?: string
  },
) {
  const q = trx('notifications').where({ type: n.type, from_account_id: n.senderId })
  if (n.recipientId) q.where({ account_id: n.recipientId })
  if (n.statusId) q.where({ status_id: n.statusId })
  await q.delete()
}
