import type { Knex } from '@roost/db'
import type { StatusRow } from '../db/rows'
import { addToConversation, dropConversationsWith, removeFromConversations } from '../domain/conversations'
import type { StreamingPublisher } from '../streaming/publisher'
import type { Consumer } from './consumer'

/**
 * Direct-message conversations from activities (docs/statuses.md, "Conversations"), as Mastodon keeps them: a new
 * direct status goes into its author's conversation here (its recipients' are filed with their mention
 * notification, activities/notifications.ts), a deleted one leaves every conversation it was in, and a block
 * deletes the blocker's conversations with the blocked account. Each handler locks the row it depends on FOR SHARE
 * and does nothing when it is gone, so replays and reordering leave nothing behind. A conversation that changed
 * is streamed to its owner once committed (`conversation` on `direct`, docs/streaming.md); a replay changes
 * nothing and streams nothing.
 */
export function conversationsConsumer(db: Knex, streaming?: StreamingPublisher): Consumer {
  return {
    'status.created': async (a, reads) => {
      // Only a direct status joins a conversation: anything else is let go without a row lock or a commit to flush
      // (docs/performance.md, "Write path").
      if ((await reads.status(a.statusId))?.visibility !== 'direct') return
      const changed = await db.transaction(async (trx) => {
        const status: StatusRow | undefined = await trx('statuses')
          .where({ id: a.statusId })
          .forShare()
          .first()
        if (status?.visibility !== 'direct') return undefined
        return addToConversation(trx, status.account_id, status)
      })
      if (changed) await streaming?.conversations([changed])
    },
    'status.deleted': async (a) => {
      if (a.visibility !== 'direct') return
      const changed = await db.transaction((trx) =>
        removeFromConversations(trx, [a.accountId, ...a.mentionedAccountIds], a.statusId),
      )
      await streaming?.conversations(changed)
    },
    'block.created': (a) =>
      db.transaction(async (trx) => {
        if (await trx('blocks').where({ id: a.blockId }).forShare().first('id'))
          await dropConversationsWith(trx, a.accountId, a.targetAccountId)
      }),
  }
}
