import type { Redis } from 'ioredis'
import type { Knex } from '@roost/db'
import type { Logger } from '@roost/service'
import { channels, redisChannel, subscribedKey } from '@roost/events'
import type { StreamingEvent, StreamingMessage } from '@roost/events'
import { activeMute } from '../queries/relationships'
import type { FeedListener } from '../feeds/context'
import type { Feed } from '../feeds/store'
import type { Urls } from '../entities/account'
import { renderConversations } from '../entities/conversation'
import type { AccountConversationRow, NotificationRow, StatusRow } from '../db/rows'
import { renderNotifications } from '../entities/notification'
import { renderStatuses } from '../entities/status'
import { createReads } from '../domain/reads'
import type { Reads } from '../domain/reads'

/** A notification just made, with its recipient (whose channel it goes to). */
export interface MadeNotification {
  id: string
  accountId: string
}

/** The events a status can be published with. */
export type StatusEvent = Extract<StreamingEvent, 'update' | 'status.update'>

/**
 * Live events for the streaming service (docs/streaming.md), published by the accounts worker on Mastodon's
 * channels: one function per channel family. Only channels someone listens to (`subscribed:` keys set by the
 * streaming service) are rendered and published, so an instance nobody streams from does no work here.
 * Payloads are rendered as Mastodon does: for the receiving account on its own channels, anonymously on public
 * and hashtag ones (with the accounts that must not see them in `exclude`).
 *
 * Publishing is best effort, like Mastodon's: a client that is not connected at that moment misses the event and
 * reads it from the timeline instead. A failure is logged and never fails the activity that caused it (its other
 * effects are done, and a retry would not publish again).
 */
export function createStreamingPublisher(options: {
  db: Knex
  redis: Redis
  redisPrefix: string
  urls: Urls
  logger: Logger
}) {
  const { db, redis, redisPrefix: prefix, urls, logger } = options

  /** Which of `names` have listeners, in one round trip. */
  async function listened(names: string[]): Promise<Set<string>> {
    if (!names.length) return new Set()
    const pipeline = redis.pipeline()
    for (const name of names) pipeline.exists(subscribedKey(prefix, name))
    const results = (await pipeline.exec()) ?? []
    return new Set(names.filter((_, i) => results[i]?.[1] === 1))
  }

  async function send(messages: [channel: string, message: StreamingMessage][]) {
    if (!messages.length) return
    const pipeline = redis.pipeline()
    for (const [channel, message] of messages)
      pipeline.publish(redisChannel(prefix, channel), JSON.stringify(message))
    await pipeline.exec()
  }

  /** The status as each of `viewerIds` sees it (favourited, bookmarked, …), one render per viewer. */
  async function renderFor(status: StatusRow, viewerIds: string[]) {
    const rendered = new Map<string, string>()
    for (const viewerId of viewerIds) {
      const [entity] = await renderStatuses(db, urls, [status], viewerId)
      rendered.set(viewerId, JSON.stringify(entity))
    }
    return rendered
  }

  /**
   * The local accounts that must not see `status` on public and hashtag streams: those who block or mute its
   * author or an account it mentions, and those its author blocks (Mastodon's streaming server checks the same
   * per connection, reading the database; here the publisher does it once per status).
   */
  async function excludedViewers(status: StatusRow): Promise<string[]> {
    const involved: string[] = [
      status.account_id,
      ...(await db('mentions').where({ status_id: status.id }).pluck('account_id')),
    ]
    const rows: { id: string }[] = await db
      .select('account_id as id')
      .from('blocks')
      .whereIn('target_account_id', involved)
      .union((q) =>
        q.select('target_account_id as id').from('blocks').where({ account_id: status.account_id }),
      )
      .union((q) =>
        q
          .select('account_id as id')
          .from('mutes')
          .whereIn('target_account_id', involved)
          .where(activeMute(db)),
      )
    return rows.map((r) => r.id)
  }

  const publisher = {
    /**
     * `timeline:<account>`: a status that entered these accounts' home feeds (`update`) or was edited there
     * (`status.update`), rendered for each.
     */
    async home(receiverIds: string[], status: StatusRow, event: StatusEvent = 'update') {
      const byChannel = new Map(receiverIds.map((id) => [channels.home(id), id]))
      const listening = [...(await listened([...byChannel.keys()]))].map((c) => byChannel.get(c)!)
      const rendered = await renderFor(status, listening)
      await send(listening.map((id) => [channels.home(id), { event, payload: rendered.get(id)! }]))
    },

    /** `timeline:<account>`: a status (or reblog) left these accounts' home feeds. */
    async homeDelete(receiverIds: string[], statusId: string) {
      const listening = await listened(receiverIds.map(channels.home))
      await send([...listening].map((channel) => [channel, { event: 'delete', payload: statusId }]))
    },

    /**
     * `timeline:<account>:notifications`: new notifications, each rendered for its recipient; read only for the
     * recipients listening.
     */
    async notifications(made: MadeNotification[]) {
      const listening = await listened(made.map((n) => channels.notifications(n.accountId)))
      const wanted = made.filter((n) => listening.has(channels.notifications(n.accountId)))
      if (!wanted.length) return
      const rows: NotificationRow[] = await db('notifications')
        .whereIn(
          'id',
          wanted.map((n) => n.id),
        )
        .orderBy('id')
      const messages: [string, StreamingMessage][] = []
      for (const row of rows) {
        const channel = channels.notifications(row.account_id)
        const [entity] = await renderNotifications(db, urls, [row], row.account_id)
        messages.push([channel, { event: 'notification', payload: JSON.stringify(entity) }])
      }
      await send(messages)
    },

    /**
     * The public channels (`timeline:public`, `:local`, `:media`) and hashtag channels (`timeline:hashtag:<tag>`,
     * `:local`) of a new or edited status, as Mastodon's fan-out broadcasts it: public statuses only, no reblogs,
     * nothing from silenced accounts; replies to others stay off the public channels but reach hashtag ones.
     */
    async publicStatus(status: StatusRow, event: StatusEvent = 'update', reads: Reads = createReads(db)) {
      if (status.visibility !== 'public' || status.reblog_of_id) return
      const author = await reads.account(status.account_id)
      if (!author || author.silenced_at || author.suspended_at) return
      // A status of another server stays off the `:local` channels.
      const local = !author.domain
      const names: string[] = []
      const media = [
        channels.public({ media: true }),
        ...(local ? [channels.public({ local: true, media: true })] : []),
      ]
      if (!status.in_reply_to_account_id || status.in_reply_to_account_id === status.account_id) {
        names.push(channels.public(), ...media)
        if (local) names.push(channels.public({ local: true }))
      }
      for (const { name } of await reads.tags(status.id)) {
        names.push(channels.hashtag(name))
        if (local) names.push(channels.hashtag(name, { local: true }))
      }
      const listening = await listened([...new Set(names)])
      // Whether the status has media decides only the `:media` channels: asked when one of them is listened to.
      if (
        media.some((channel) => listening.has(channel)) &&
        !(await db('media_attachments').where({ status_id: status.id }).first('id'))
      )
        media.forEach((channel) => listening.delete(channel))
      if (!listening.size) return
      const [entity] = await renderStatuses(db, urls, [status])
      const message: StreamingMessage = {
        event,
        payload: JSON.stringify(entity),
        exclude: await excludedViewers(status),
      }
      await send([...listening].map((channel) => [channel, message]))
    },

    /** A deleted public status leaves the public and hashtag channels (Mastodon sends to every one of them). */
    async publicDelete(deleted: { statusId: string; visibility: string; tags: string[] }) {
      if (deleted.visibility !== 'public') return
      const names = [
        channels.public(),
        channels.public({ local: true }),
        channels.public({ media: true }),
        channels.public({ local: true, media: true }),
        ...deleted.tags.flatMap((tag) => [channels.hashtag(tag), channels.hashtag(tag, { local: true })]),
      ]
      const listening = await listened([...new Set(names)])
      await send([...listening].map((channel) => [channel, { event: 'delete', payload: deleted.statusId }]))
    },

    /**
     * `timeline:list:<id>`: a status that entered lists (`update`, or `status.update` for an edit), rendered
     * for each list's owner. For the list fan-out (docs/feeds.md).
     */
    async list(
      lists: { listId: string; ownerId: string }[],
      status: StatusRow,
      event: StatusEvent = 'update',
    ) {
      const listening = await listened(lists.map((l) => channels.list(l.listId)))
      const wanted = lists.filter((l) => listening.has(channels.list(l.listId)))
      const rendered = await renderFor(status, [...new Set(wanted.map((l) => l.ownerId))])
      await send(wanted.map((l) => [channels.list(l.listId), { event, payload: rendered.get(l.ownerId)! }]))
    },

    /** `timeline:list:<id>`: a status left these lists. */
    async listDelete(listIds: string[], statusId: string) {
      const listening = await listened(listIds.map(channels.list))
      await send([...listening].map((channel) => [channel, { event: 'delete', payload: statusId }]))
    },

    /**
     * `timeline:<account>:notifications`: accepted notification requests have been merged into the list
     * (`notifications_merged`, payload `"1"`, as Mastodon's UnfilterNotificationsWorker).
     */
    async notificationsMerged(accountId: string) {
      const listening = await listened([channels.notifications(accountId)])
      await send([...listening].map((channel) => [channel, { event: 'notifications_merged', payload: '1' }]))
    },

    /** `timeline:<account>`: the account's filters changed (`filters_changed`, no payload, as Mastodon's). */
    async filtersChanged(accountId: string) {
      const listening = await listened([channels.home(accountId)])
      await send([...listening].map((channel) => [channel, { event: 'filters_changed' }]))
    },

    /**
     * `timeline:<account>` of every local account that streams: announcements (`announcement` with the entity
     * rendered for no one, `announcement.delete` with its id, `announcement.reaction` with `{name, count,
     * announcement_id}`), as Mastodon sends them to its active users. Accounts are read a thousand at a time.
     */
    async everyone(event: Extract<StreamingEvent, `announcement${string}`>, payload: string) {
      let after = '0'
      for (;;) {
        const ids: string[] = await db('users')
          .where('account_id', '>', after)
          .orderBy('account_id')
          .limit(1000)
          .pluck('account_id')
        const listening = await listened(ids.map((id) => channels.home(String(id))))
        await send([...listening].map((channel) => [channel, { event, payload }]))
        if (ids.length < 1000) return
        after = String(ids.at(-1))
      }
    },

    /**
     * `timeline:direct:<account>`: conversations that changed (a direct status entered or left them), each as
     * Mastodon's Conversation entity rendered for its owner (Mastodon's PushConversationWorker). Conversations
     * deleted meanwhile are skipped.
     */
    async conversations(conversationIds: string[]) {
      if (!conversationIds.length) return
      const rows: AccountConversationRow[] = await db('account_conversations')
        .whereIn('id', conversationIds)
        .whereNotNull('last_status_id')
        .orderBy('id')
      const listening = await listened(rows.map((c) => channels.direct(String(c.account_id))))
      const messages: [string, StreamingMessage][] = []
      for (const row of rows) {
        const channel = channels.direct(String(row.account_id))
        if (!listening.has(channel)) continue
        const [entity] = await renderConversations(db, urls, [row], String(row.account_id))
        messages.push([channel, { event: 'conversation', payload: JSON.stringify(entity) }])
      }
      await send(messages)
    },
  }

  /** The owners of lists, to render what enters them for their owner. */
  const owners = async (listIds: string[]) =>
    new Map<string, string>(
      (await db('lists').whereIn('id', listIds).select('id', 'account_id')).map(
        (l: { id: string; account_id: string }) => [l.id, l.account_id],
      ),
    )
  const split = (feeds: Feed[]) => ({
    homes: feeds.filter((f) => f.type === 'home').map((f) => f.id),
    lists: feeds.filter((f) => f.type === 'list').map((f) => f.id),
  })
  const entered = async (feeds: Feed[], status: StatusRow, event: StatusEvent) => {
    const { homes, lists } = split(feeds)
    await publisher.home(homes, status, event)
    if (!lists.length) return
    const owner = await owners(lists)
    await publisher.list(
      lists.flatMap((listId) => (owner.has(listId) ? [{ listId, ownerId: owner.get(listId)! }] : [])),
      status,
      event,
    )
  }

  /** What fan-out tells the publisher (feeds/context.ts): home and list feeds a status entered, left or changed in. */
  const feedListener: FeedListener = {
    inserted: (feeds, status) => entered(feeds, status, 'update'),
    updated: (feeds, status) => entered(feeds, status, 'status.update'),
    async removed(feeds, statusId) {
      const { homes, lists } = split(feeds)
      await publisher.homeDelete(homes, statusId)
      await publisher.listDelete(lists, statusId)
    },
  }

  // Every function logs its failure instead of throwing (best effort, see above).
  type Publisher = typeof publisher
  const safe = {} as Publisher
  for (const [name, publish] of Object.entries(publisher) as [
    keyof Publisher,
    (...a: unknown[]) => Promise<void>,
  ][])
    (safe as Record<string, unknown>)[name] = (...args: unknown[]) =>
      publish(...args).catch((err: unknown) =>
        logger.warn({ err, channel: name }, 'streaming publication failed'),
      )
  const safeListener: FeedListener = {
    inserted: (feeds, status) =>
      entered(feeds, status, 'update').catch((err: unknown) =>
        logger.warn({ err }, 'streaming publication failed'),
      ),
    updated: (feeds, status) =>
      entered(feeds, status, 'status.update').catch((err: unknown) =>
        logger.warn({ err }, 'streaming publication failed'),
      ),
    removed: (feeds, statusId) =>
      feedListener
        .removed(feeds, statusId)
        .catch((err: unknown) => logger.warn({ err }, 'streaming publication failed')),
  }
  return Object.assign(safe, { feedListener: safeListener })
}

export type StreamingPublisher = ReturnType<typeof createStreamingPublisher>
