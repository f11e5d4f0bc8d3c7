import type { Knex } from '@roost/db'
import type { Urls } from '../entities/account'
import type { QuoteRow, ReportRow, StatusRow } from '../db/rows'
import { addToConversation } from '../domain/conversations'
import {
  notify as notifyInTransaction,
  notifyAll as notifyAllInTransaction,
  withdrawNotifications,
} from '../domain/notifications'
import type { ActivityRow, NewNotification } from '../domain/notifications'
import type { MadeNotification, StreamingPublisher } from '../streaming/publisher'
import { staffToNotify } from '../domain/reports'
import type { Consumer } from './consumer'

/**
 * Notifications from activities (Mastodon's LocalNotificationWorker and NotifyService): each activity's
 * notifications and their `notification.created` events are written in one transaction, keyed by activity and
 * recipient, so a replay adds nothing. The transaction locks the activity's row (FOR SHARE): if the row is gone
 * (undone before this ran) nothing is notified, and an undo waits until this commits, so its `…removed` activity
 * always finds the notification to take back. The recipients' facts statement takes the lock (`ActivityRow`); work
 * that reads the row first (`whileExists`) takes it with that read.
 */
export function notificationsConsumer(db: Knex, urls: Urls, streaming?: StreamingPublisher): Consumer {
  /**
   * The notifications each open transaction made, and the conversations it changed, streamed to their recipients
   * once it has committed.
   */
  const made = new WeakMap<Knex, MadeNotification[]>()
  const conversed = new WeakMap<Knex, string[]>()
  const notify = async (trx: Knex, urls: Urls, n: NewNotification, activityRow?: ActivityRow) => {
    const id = await notifyInTransaction(trx, urls, n, activityRow)
    if (id) made.get(trx)?.push({ id, accountId: n.recipientId })
    return id
  }
  const notifyAll = async (
    trx: Knex,
    n: Omit<NewNotification, 'recipientId'>,
    recipientIds: string[],
    activityRow?: ActivityRow,
  ) => {
    const ids = await notifyAllInTransaction(trx, urls, n, recipientIds, activityRow)
    for (const [accountId, id] of ids) made.get(trx)?.push({ id, accountId })
    return ids
  }
  /** Runs `work` in a transaction, then streams the notifications it made and the conversations it changed. */
  const inTransaction = async (work: (trx: Knex) => Promise<unknown>) => {
    const notifications: MadeNotification[] = []
    const conversations: string[] = []
    await db.transaction(async (trx) => {
      made.set(trx, notifications)
      conversed.set(trx, conversations)
      await work(trx)
    })
    await streaming?.notifications(notifications)
    await streaming?.conversations(conversations)
  }
  /** `inTransaction` for work that reads the activity's row: read and locked first, nothing done if it is gone. */
  const whileExists = <T>(table: string, id: string, work: (trx: Knex, row: T) => Promise<unknown>) =>
    inTransaction(async (trx) => {
      const row: T | undefined = await trx(table).where({ id }).forShare().first()
      if (row) await work(trx, row)
    })

  /**
   * Mentions notify the mentioned accounts, once per status (an edit that adds a mention notifies the new one). A
   * direct status whose mention notification is made also goes into the recipient's conversation (Mastodon's
   * NotifyService: one that is dropped, a blocked sender or a muted thread, does not). The mentions come from the
   * activity's shared read (`Reads`): an edit made since has its own activity, which notifies whom it added.
   */
  const notifyMentioned = async (
    trx: Knex,
    status: StatusRow,
    mentions: readonly string[],
    activityRow?: ActivityRow,
  ) => {
    const mentioned = [...mentions].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1))
    const notified = await notifyAll(
      trx,
      { type: 'mention', senderId: status.account_id, statusId: status.id, activityId: status.id },
      mentioned,
      activityRow,
    )
    if (status.visibility === 'direct')
      for (const recipientId of mentioned) {
        if (!notified.has(recipientId)) continue
        const changed = await addToConversation(trx, recipientId, status)
        if (changed) conversed.get(trx)?.push(changed)
      }
  }

  return {
    // Moderators and admins hear of each report (Mastodon's `admin.report`), from the reporter.
    'report.created': (a) =>
      whileExists<ReportRow>('reports', a.reportId, async (trx, report) => {
        await notifyAll(
          trx,
          { type: 'admin.report', senderId: report.account_id, activityId: report.id },
          await staffToNotify(trx, report),
        )
      }),
    'status.created': async (a, reads) => {
      // Only a mention, or a follower who asked to hear of new posts (not of direct messages and replies), makes a
      // `status.created` notification. Most posts have neither: the activity's shared read of the status and its
      // mentions, then no transaction, no row lock and no commit to flush (docs/performance.md, "Write path").
      // Otherwise the status is locked by the recipients' facts statement, and one deleted since notifies nobody.
      const status = await reads.status(a.statusId)
      if (!status) return
      const mentioned = await reads.mentions(status.id)
      const watched =
        status.visibility !== 'direct' && !status.in_reply_to_id && (await reads.watched(status.account_id))
      if (!mentioned.length && !watched) return
      const statusRow: ActivityRow = { table: 'statuses', id: status.id }
      await inTransaction(async (trx) => {
        if (mentioned.length) await notifyMentioned(trx, status, mentioned, statusRow)
        if (!watched) return
        // Those mentioned were told already.
        const watchers: string[] = await trx('follows')
          .where({ target_account_id: status.account_id, notify: true })
          .whereNotIn('account_id', [...mentioned])
          .orderBy('id')
          .pluck('account_id')
        await notifyAll(
          trx,
          { type: 'status', senderId: status.account_id, statusId: status.id, activityId: status.id },
          watchers,
          statusRow,
        )
      })
    },

    /**
     * An edit (Mastodon's FanOutOnWriteService with `update`): accounts mentioned for the first time are notified,
     * and everyone who boosted the status gets an `update` notification that replaces the one of an earlier edit.
     * The notification is keyed by the edit (status_edits row), so a replay adds nothing and an older edit
     * handled late does not replace a newer one's.
     */
    'status.updated': async (a, reads) => {
      const mentioned = await reads.mentions(a.statusId)
      await whileExists<StatusRow>('statuses', a.statusId, async (trx, status) => {
        await notifyMentioned(trx, status, mentioned)
        const boosters: string[] = await trx('statuses')
          .where({ reblog_of_id: status.id })
          .orderBy('account_id')
          .distinct()
          .pluck('account_id')
        for (const recipientId of boosters) {
          const earlier = trx('notifications').where({
            account_id: recipientId,
            type: 'update',
            status_id: status.id,
          })
          if (await earlier.clone().where('activity_id', '>=', a.editId).first('id')) continue
          await earlier.clone().delete()
          await notify(trx, urls, {
            type: 'update',
            recipientId,
            senderId: status.account_id,
            statusId: status.id,
            activityId: a.editId,
          })
        }
        // Those whose accepted quotes quote it (Mastodon 4.5's FanOutOnWriteService#notify_about_update!): a
        // `quoted_update` from its author, on their quoting post, replacing an earlier one.
        const quotes: { status_id: string; account_id: string }[] = await trx('quotes')
          .where({ quoted_status_id: status.id, state: 'accepted' })
          .orderBy('id')
          .select('status_id', 'account_id')
        for (const quote of quotes) {
          const earlier = trx('notifications').where({
            account_id: quote.account_id,
            type: 'quoted_update',
            status_id: quote.status_id,
          })
          if (await earlier.clone().where('activity_id', '>=', a.editId).first('id')) continue
          await earlier.clone().delete()
          await notify(trx, urls, {
            type: 'quoted_update',
            recipientId: quote.account_id,
            senderId: status.account_id,
            statusId: quote.status_id,
            activityId: a.editId,
          })
        }
      })
    },

    'reblog.created': (a) =>
      inTransaction((trx) =>
        notify(
          trx,
          urls,
          {
            type: 'reblog',
            recipientId: a.reblogOfAccountId,
            senderId: a.accountId,
            statusId: a.reblogOfId,
            activityId: a.statusId,
          },
          { table: 'statuses', id: a.statusId },
        ),
      ),
    'reblog.removed': (a) =>
      withdrawNotifications(db, { type: 'reblog', recipientId: a.reblogOfAccountId, activityId: a.statusId }),

    // An accepted quote of a local post notifies its author (Mastodon's LocalNotificationWorker with `quote`).
    'quote.accepted': (a) =>
      whileExists<QuoteRow>('quotes', a.quoteId, async (trx, quote) => {
        if (quote.state !== 'accepted' || !quote.quoted_account_id) return
        await notify(trx, urls, {
          type: 'quote',
          recipientId: quote.quoted_account_id,
          senderId: quote.account_id,
          statusId: quote.status_id,
          activityId: quote.id,
        })
      }),
    'favourite.created': (a) =>
      inTransaction((trx) =>
        notify(
          trx,
          urls,
          {
            type: 'favourite',
            recipientId: a.statusAccountId,
            senderId: a.accountId,
            statusId: a.statusId,
            activityId: a.favouriteId,
          },
          { table: 'favourites', id: a.favouriteId },
        ),
      ),
    'favourite.removed': (a) =>
      withdrawNotifications(db, {
        type: 'favourite',
        recipientId: a.statusAccountId,
        activityId: a.favouriteId,
      }),

    // A follow notifies its target, also when it comes from an accepted request (Mastodon tells the approver too).
    'follow.created': (a) =>
      inTransaction((trx) =>
        notify(
          trx,
          urls,
          { type: 'follow', recipientId: a.targetAccountId, senderId: a.accountId, activityId: a.followId },
          { table: 'follows', id: a.followId },
        ),
      ),
    'follow.removed': (a) =>
      withdrawNotifications(db, { type: 'follow', recipientId: a.targetAccountId, activityId: a.followId }),

    'follow_request.created': (a) =>
      inTransaction((trx) =>
        notify(
          trx,
          urls,
          {
            type: 'follow_request',
            recipientId: a.targetAccountId,
            senderId: a.accountId,
            activityId: a.followRequestId,
          },
          { table: 'follow_requests', id: a.followRequestId },
        ),
      ),
    'follow_request.authorized': (a) => withdrawRequest(db, a),
    'follow_request.rejected': (a) => withdrawRequest(db, a),
    'follow_request.withdrawn': (a) => withdrawRequest(db, a),
  }
}

/** A decided or withdrawn request takes its notification along (Mastodon: dependent on its activity). */
const withdrawRequest = (db: Knex, a: { followRequestId: string; targetAccountId: string }) =>
  withdrawNotifications(db, {
    type: 'follow_request',
    recipientId: a.targetAccountId,
    activityId: a.followRequestId,
  })
