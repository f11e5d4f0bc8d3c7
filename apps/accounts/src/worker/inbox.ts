import type { Knex } from '@roost/db'
import { inboxActivity, processor } from '@roost/events'
import type { Federation } from '../federation/transport/client'
import { isDomainBlocked } from '../federation/domain-blocks'
import type { Deliver } from '../federation/transport/delivery-queue'
import { processActivity } from '../federation/inbox/process'

/**
 * The `inbox` queue's processor: an activity from another server, its signature verified by the inbox
 * (docs/federation.md, "Inboxes"), through the same domain functions as the client API.
 */
export const inboxProcessor = (db: Knex, federation: Federation, deliver: Deliver, concurrency: number) =>
  processor({
    schema: inboxActivity,
    async process(received) {
      const signer = await db('accounts').where({ id: received.signerAccountId }).first()
      // Nothing from a server suspended since (docs/federation.md, "Domain blocks").
      if (!signer?.domain || (await isDomainBlocked(db, signer.domain))) return
      await processActivity(federation, deliver, signer, received.activity)
    },
    concurrency,
  })
