import type { Queue } from 'bullmq'
import type { Knex } from '@roost/db'
import { activity, processor } from '@roost/events'
import type { Activity } from '@roost/events'
import type { Consumer } from '../activities/consumer'
import { conversationsConsumer } from '../activities/conversations'
import { federationConsumer } from '../activities/federation'
import { feedsConsumer } from '../activities/feeds'
import { notificationsConsumer } from '../activities/notifications'
import { remoteMediaConsumer } from '../activities/remote-media'
import { profileLinksConsumer } from '../activities/profile-links'
import { relaysConsumer } from '../activities/relays'
import { streamingConsumer } from '../activities/streaming'
import { createReads } from '../domain/reads'
import type { Reads } from '../domain/reads'
import type { Urls } from '../entities/account'
import type { Feeds } from '../feeds/context'
import type { Federation } from '../federation/transport/client'
import type { Deliver } from '../federation/transport/delivery-queue'
import type { StreamingPublisher } from '../streaming/publisher'
import { webhooksConsumer } from '../activities/webhooks'

/**
 * The consumers of activities, by the name docs/activities.md ("What each event sets off") gives them, in the
 * order each activity runs through them.
 */
export function createConsumers(d: {
  db: Knex
  urls: Urls
  streaming: StreamingPublisher
  feeds: Feeds
  federation: Federation
  deliver: Deliver
  /** Asks for a local poll's counts to go to other servers a few minutes from now (the `poll.distribute` timer). */
  pollUpdateSoon: (pollId: string) => Promise<void>
  /** The `media` queue, where remote attachments wait to be copied (docs/federation.md, "Remote media"). */
  mediaQueue: Queue
  remoteMediaRetryBaseMs: number
  /** The events some enabled admin webhook wants (wantedWebhookEvents, domain/webhooks.ts). */
  webhookEvents: () => Promise<Set<string>>
}) {
  return {
    notifications: notificationsConsumer(d.db, d.urls, d.streaming),
    conversations: conversationsConsumer(d.db, d.streaming),
    feeds: feedsConsumer(d.feeds),
    streaming: streamingConsumer(d.db, d.urls, d.streaming),
    federation: federationConsumer(d.federation, d.deliver, d.pollUpdateSoon),
    relays: relaysConsumer(d.federation, d.deliver),
    // Last: a slow remote server delays nothing the others do.
    remoteMedia: remoteMediaConsumer(d.db, d.mediaQueue, d.remoteMediaRetryBaseMs),
    // After the others too: it reads the pages profile fields link to, bounded as every fetch is.
    profileLinks: profileLinksConsumer(d.federation),
    webhooks: webhooksConsumer(d.db, d.webhookEvents),
  }
}
export type Consumers = ReturnType<typeof createConsumers>

/**
 * The `activities` queue's processor: each activity through every consumer, the rows it names read once for all
 * of them (`Reads`, docs/activities.md, "The accounts worker").
 */
export const activitiesProcessor = (db: Knex, consumers: Consumers, concurrency: number) =>
  processor({
    schema: activity,
    async process(a) {
      const reads = createReads(db)
      for (const consumer of Object.values<Consumer>(consumers))
        await (consumer[a.event] as ((a: Activity, reads: Reads) => Promise<void>) | undefined)?.(a, reads)
    },
    concurrency,
  })
