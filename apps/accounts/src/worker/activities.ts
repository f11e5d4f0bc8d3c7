import type { Queue } from 'bullmq'
import type { Knex } from '@roost/db'
import { activityJob, activityJobOptions, JOB_NAMES, processor, RETRY_BACKOFF } from '@roost/events'
import type { Activity } from '@roost/events'
import type { Logger } from '@roost/service'
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
 * of them (`Reads`, docs/activities.md, "The accounts worker"). At most `concurrency` activities run at once in the
 * process, alone or in batches. A batch (`activities.batch`, the activities of one relay batch) starts its
 * activities in their order and runs them together: their notifications commit together, and the relay merges them
 * into few push jobs (one after the other, each would make a push job of its own: docs/performance.md, "Write
 * path"). One that fails is added as a job of its own under the id it would have had alone, retried as any activity
 * job, and the batch completes: the others are not run again for it. A batch run again (its worker died) runs every
 * activity again, to no effect for those done.
 */
export function activitiesProcessor(d: {
  db: Knex
  consumers: Consumers
  /** The `activities` queue, where an activity that failed in a batch is retried. */
  queue: Queue
  logger: Logger
  /** Jobs taken at once, and activities run at once (ACCOUNTS_WORKER_CONCURRENCY). */
  concurrency: number
}) {
  let running = 0
  const waiting: (() => void)[] = [] // in the order they asked: a batch's activities start in their order
  async function run(a: Activity) {
    if (running < d.concurrency) running++
    else await new Promise<void>((resolve) => waiting.push(resolve))
    try {
      const reads = createReads(d.db)
      for (const consumer of Object.values<Consumer>(d.consumers))
        await (consumer[a.event] as ((a: Activity, reads: Reads) => Promise<void>) | undefined)?.(a, reads)
    } finally {
      const next = waiting.shift()
      if (next) next()
      else running--
    }
  }
  return processor({
    schema: activityJob,
    async process(job) {
      if (job.event !== JOB_NAMES.activitiesBatch) return run(job)
      const failed = new Set<(typeof job.activities)[number]>()
      await Promise.all(
        job.activities.map((one) =>
          run(one.activity).catch((err: unknown) => {
            d.logger.warn(
              { err, jobId: one.jobId, event: one.activity.event },
              'activity failed in its batch',
            )
            failed.add(one)
          }),
        ),
      )
      if (failed.size)
        await d.queue.addBulk(
          job.activities
            .filter((one) => failed.has(one))
            .map(({ jobId, activity }) => ({
              name: activity.event,
              data: activity,
              // After the first step of the backoff, as its first failure alone would have been.
              opts: { ...activityJobOptions, jobId, delay: RETRY_BACKOFF.delay },
            })),
        )
    },
    concurrency: d.concurrency,
  })
}
