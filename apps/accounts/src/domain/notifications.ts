import type { Knex } from '@roost/db'
import { pushExcerpt } from '@roost/events'
import type { NotificationType } from '@roost/events'
import type { Urls } from '../entities/account'
import { avatarOf } from '../entities/account'
import * as outbox from '../outbox/outbox'
import { GROUPABLE_TYPES } from '../queries/notification_groups'
import { bigintArray } from '../queries/sql'
import { activeMute } from '../queries/relationships'
import { domainCovered } from './relationships'
import type { PolicyFacts, PolicyValue } from './notification_policies'
import { answersRecipient, noteRequest, POLICY_FACTS_SQL, policyVerdict } from './notification_policies'

interface RecipientFacts extends PolicyFacts {
  recipient_id: string
  user_id: string
  locale: string
  suspended_at: Date | null
  blocks: boolean
  mutes: boolean
  mutes_conversation: boolean
  recipient_follows: boolean
  sender_follows: boolean
  sender_silenced: boolean
  domain_blocked: boolean
  /** The sender as a push shows it, the same on every row, with the text of the status if there is one. */
  sender_username: string
  sender_display_name: string
  sender_note: string
  sender_avatar_file: string | null
  sender_avatar_remote_url: string | null
  status_text: string | null
  status_spoiler_text: string | null
  status_visibility: string | null
  status_in_reply_to_id: string | null
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
 * The row an activity is about (the status, favourite, follow…), locked FOR SHARE by the recipients' facts statement
 * until the notifications commit: if it is gone (the activity undone before the worker ran it), nobody is notified,
 * and an undo waits for the commit, so its `…removed` activity finds the notification to take back.
 */
export interface ActivityRow {
  table: 'statuses' | 'favourites' | 'follows' | 'follow_requests'
  id: string
}

/** A group spans at most this many hour buckets. */
const GROUP_SPAN_HOURS = 12

/**
 * The group of a new notification, as Mastodon's Notification#set_group_key!: `<type>-<status id>` (favourites,
 * reblogs) or `<type>` (follows, sign-ups), then the hour bucket, reusing the recipient's latest bucket of that
 * prefix while the new one is less than 12 hours after it. Mastodon keeps the latest bucket in Redis; Roost reads
 * it from the notifications themselves. Null for types never grouped.
 */
async function groupKeyFor(trx: Knex, n: NewNotification): Promise<string | null> {
  if (!GROUPABLE_TYPES.includes(n.type)) return null
  const prefix = n.type === 'favourite' || n.type === 'reblog' ? `${n.type}-${n.statusId}` : n.type
  let bucket = Math.floor(Date.now() / 3_600_000)
  const latest: { group_key: string } | undefined = await trx('notifications')
    .where('account_id', n.recipientId)
    .where('group_key', '>=', `${prefix}-`)
    .where('group_key', '<', `${prefix}.`)
    .orderBy('group_key', 'desc')
    .first('group_key')
  const previous = latest ? Number(latest.group_key.slice(prefix.length + 1)) : NaN
  if (Number.isSafeInteger(previous) && bucket < previous + GROUP_SPAN_HOURS) bucket = previous
  return `${prefix}-${bucket}`
}

/** `notify` for one recipient: the new notification's id, undefined when none was made. */
export async function notify(
  trx: Knex,
  urls: Urls,
  n: NewNotification,
  activityRow?: ActivityRow,
): Promise<string | undefined> {
  const { recipientId, ...rest } = n
  return (await notifyAll(trx, urls, rest, [recipientId], activityRow)).get(recipientId)
}

/**
 * Mastodon's NotifyService, run by the accounts worker only (docs/activities.md), inside its transaction, for one
 * activity and any number of recipients: drops the notification for self-actions (except a poll's end), a
 * suspended or remote recipient, a sender the recipient blocks or muted with notifications, a silenced sender the
 * recipient does not follow, or a status in a thread the recipient muted, then applies the recipient's notification
 * policy (docs/discovery.md, "Notification policy and requests"): `drop` stores nothing, `filter` stores it with
 * `filtered` and no event (a mention also goes into its sender's request); otherwise stores it together with its
 * `notification.created` event (the relay merges those of one batch into `notifications.created` jobs). A replayed
 * activity finds its notifications there already and adds nothing. Whatever the number of recipients, this is two
 * statements: their facts with the sender and the status's text (locking `activityRow` when given), and the
 * notifications with their outbox rows (docs/performance.md, "Write path"); plus a read per groupable notification
 * and per unsolicited private mention, and one per filtered mention's request. Returns recipient → new
 * notification id (only those made and not filtered), so the caller can stream them once its transaction has
 * committed; recipients' notifications are made in the order given.
 */
export async function notifyAll(
  trx: Knex,
  urls: Urls,
  n: Omit<NewNotification, 'recipientId'>,
  recipientIds: string[],
  activityRow?: ActivityRow,
): Promise<Map<string, string>> {
  // A poll's end is news to its own author too (Mastodon exempts `poll` from the self-action rule).
  const wanted = [...new Set(recipientIds)].filter((id) => id !== n.senderId || n.type === 'poll')
  const made = new Map<string, string>()
  if (!wanted.length) return made
  // The recipients, their users, every relationship fact and the sender (with the text of the status, the push's
  // excerpt) in one round trip. No row comes back without the sender: a sender gone since tells no one. Nor without
  // the activity's row, which the same statement locks: the EXISTS is uncorrelated, so Postgres runs it once, as
  // the statement starts, whatever the recipients.
  const { rows } = await trx.raw<{ rows: RecipientFacts[] }>(
    `SELECT accounts.id AS recipient_id, users.id AS user_id, users.locale, accounts.suspended_at,
       EXISTS (SELECT 1 FROM blocks WHERE account_id = accounts.id AND target_account_id = :s) AS blocks,
       EXISTS (SELECT 1 FROM mutes WHERE account_id = accounts.id AND target_account_id = :s AND hide_notifications
               AND ${activeMute(trx).toQuery()}) AS mutes,
       (:status::bigint IS NOT NULL AND EXISTS (
          SELECT 1 FROM conversation_mutes JOIN statuses ON statuses.conversation_id = conversation_mutes.conversation_id
          WHERE statuses.id = :status::bigint AND conversation_mutes.account_id = accounts.id)) AS mutes_conversation,
       EXISTS (SELECT 1 FROM follows WHERE account_id = accounts.id AND target_account_id = :s) AS recipient_follows,
       EXISTS (SELECT 1 FROM follows WHERE account_id = :s AND target_account_id = accounts.id) AS sender_follows,
       sender.silenced_at IS NOT NULL AS sender_silenced,
       EXISTS (SELECT 1 FROM account_domain_blocks b
               WHERE b.account_id = accounts.id AND ${domainCovered('b.domain', 'sender.domain')}) AS domain_blocked,
       sender.username AS sender_username, sender.display_name AS sender_display_name, sender.note AS sender_note,
       sender.avatar_file AS sender_avatar_file, sender.avatar_remote_url AS sender_avatar_remote_url,
       status.text AS status_text, status.spoiler_text AS status_spoiler_text,
       status.visibility AS status_visibility, status.in_reply_to_id AS status_in_reply_to_id,
       ${POLICY_FACTS_SQL}
     FROM accounts JOIN users ON users.account_id = accounts.id
       JOIN accounts AS sender ON sender.id = :s
       LEFT JOIN users AS sender_user ON sender_user.account_id = sender.id
       LEFT JOIN notification_policies AS policy ON policy.account_id = accounts.id
       LEFT JOIN statuses AS status ON status.id = :status::bigint
     WHERE accounts.id = ANY (:r::bigint[])
       ${activityRow ? `AND EXISTS (SELECT 1 FROM ${activityRow.table} WHERE id = :activityRow FOR SHARE)` : ''}`,
    {
      r: bigintArray(wanted),
      s: n.senderId,
      status: n.statusId ?? null,
      activityRow: activityRow?.id ?? null,
    },
  )
  const factsOf = new Map(rows.map((r) => [String(r.recipient_id), r]))
  const blocked = (id: string) => {
    const facts = factsOf.get(id)
    if (!facts || facts.suspended_at || facts.blocks || facts.mutes || facts.mutes_conversation) return true
    // A sender whose domain the recipient blocks reaches the recipient only if followed (Mastodon's
    // `blocked_domain?`).
    return facts.domain_blocked && !facts.recipient_follows
  }
  // Then the recipient's policy (a silenced sender is `for_limited_accounts`, filtered by default).
  const verdicts = new Map<string, PolicyValue>()
  for (const id of wanted) {
    if (blocked(id)) continue
    const facts = factsOf.get(id)!
    const privateMention =
      n.type === 'mention' &&
      facts.status_visibility === 'direct' &&
      !facts.recipient_follows &&
      facts.for_private_mentions !== 'accept'
    const unsolicited =
      privateMention &&
      !(await answersRecipient(
        trx,
        { id: n.statusId!, in_reply_to_id: facts.status_in_reply_to_id },
        id,
        n.senderId,
      ))
    verdicts.set(id, policyVerdict(n.type, facts, unsolicited))
  }
  const recipients = wanted.filter((id) => verdicts.has(id) && verdicts.get(id) !== 'drop')
  if (!recipients.length) return made
  const groupKeys = new Map<string, string | null>()
  // Filtered notifications are never grouped (Mastodon's `set_group_key!`).
  for (const recipientId of recipients)
    groupKeys.set(
      recipientId,
      verdicts.get(recipientId) === 'filter' ? null : await groupKeyFor(trx, { ...n, recipientId }),
    )
  const sender = rows[0]!
  const senderName = sender.sender_display_name || sender.sender_username
  const senderAvatarUrl = avatarOf(
    { avatar_file: sender.sender_avatar_file, avatar_remote_url: sender.sender_avatar_remote_url },
    urls,
  )
  // Statuses and bios are stored as the plain text their authors typed; the push shows 140 characters.
  const excerpt = pushExcerpt(
    sender.status_text !== null ? sender.status_spoiler_text || sender.status_text : sender.sender_note,
  )
  // The event of each notification that is not filtered, by recipient; the statement fills in the notification's
  // id and time, for the rows it inserts (none for a replay's).
  const events = new Map(
    recipients
      .filter((recipientId) => verdicts.get(recipientId) !== 'filter')
      .map((recipientId) => {
        const facts = factsOf.get(recipientId)!
        const event = {
          event: 'notification.created' as const,
          type: n.type,
          recipientUserId: String(facts.user_id),
          recipientAccountId: recipientId,
          recipientLocale: facts.locale,
          senderAccountId: n.senderId,
          senderName,
          senderAvatarUrl,
          excerpt,
          recipientFollowsSender: facts.recipient_follows,
          senderFollowsRecipient: facts.sender_follows,
        }
        return [recipientId, event]
      }),
  )
  // The notifications and their events in one statement (docs/activities.md, "The outbox and its relay").
  const inserted: { id: string; account_id: string }[] = await trx
    .queryBuilder()
    .with(
      'n',
      trx('notifications')
        .insert(
          recipients.map((recipientId) => ({
            account_id: recipientId,
            from_account_id: n.senderId,
            type: n.type,
            status_id: n.statusId ?? null,
            activity_id: n.activityId,
            group_key: groupKeys.get(recipientId),
            filtered: verdicts.get(recipientId) === 'filter',
          })),
        )
        .onConflict(['account_id', 'type', 'activity_id'])
        .ignore()
        .returning(['id', 'account_id', 'created_at']),
    )
    .with(
      'o',
      outbox.insertFor(
        trx,
        { cte: 'n', key: 'n.account_id::text' },
        { notificationId: outbox.rowId('n.id'), createdAt: outbox.rowTime('n.created_at') },
        events,
      ),
    )
    .from('n')
    .select('id', 'account_id')
  const byRecipient = new Map(inserted.map((row) => [String(row.account_id), row]))
  for (const recipientId of recipients) {
    const row = byRecipient.get(recipientId)
    if (!row) continue // there already: a replay
    if (verdicts.get(recipientId) === 'filter') {
      if (n.type === 'mention' && n.statusId) await noteRequest(trx, recipientId, n.senderId, n.statusId)
      continue
    }
    made.set(recipientId, String(row.id))
  }
  return made
}

/**
 * SQL: whether a follower of the account in `accountColumn` asked to hear of its new posts (a watcher): one entry of
 * the partial index of such follows (`follows_watched`), however many followers the account has. Asked for each new
 * status, with the status itself (`Reads.watched`); a follow made after this read is too late for the status at hand.
 */
export const watchedSql = (accountColumn: string) =>
  `EXISTS (SELECT 1 FROM follows WHERE follows.target_account_id = ${accountColumn} AND follows.notify)`

/** Whether a follower of the account asked to hear of its new posts (`watchedSql`). */
export async function isWatched(db: Knex, accountId: string): Promise<boolean> {
  const { rows } = await db.raw<{ rows: { watched: boolean }[] }>(
    `SELECT ${watchedSql('?::bigint')} AS watched`,
    [accountId],
  )
  return rows[0]!.watched
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
