import type { Knex } from '@roost/db'
import { accountEvent, processor } from '@roost/events'
import { deleteByToken, deleteByUser } from './store'

/**
 * The `account-events` queue's processor: a revoked token's subscription goes, and every subscription of a user
 * suspended, deleted, or unsubscribed from push by a moderator (`push_subscriptions.revoked`).
 */
export const accountEventsProcessor = (db: Knex, concurrency: number) =>
  processor({
    schema: accountEvent,
    async process(event) {
      if (event.event === 'token.revoked') await deleteByToken(db, event.tokenId)
      else await deleteByUser(db, event.userId)
    },
    concurrency,
  })
