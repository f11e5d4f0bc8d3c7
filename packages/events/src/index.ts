import { createHash } from 'node:crypto'
import { Queue } from 'bullmq'
import type { ConnectionOptions, JobsOptions } from 'bullmq'
import { Redis } from 'ioredis'
import { z } from 'zod'
import { bullPrefix, QUEUES } from './queues'
import type { QueueName } from './queues'

/**
 * The contracts between processes that travel over BullMQ (docs/activities.md): queue names, event names and
 * payload schemas. Every event is an object whose `event` field names it; the outbox validates it before
 * storing it, workers parse it on receipt. The job name is the event name, the job data the whole event. The
 * queues, and which process consumes each, are in queues.ts.
 */
const id = z.string().regex(/^\d{1,19}$/)

/** The visibilities of a status (Mastodon's `Status#visibility`): the domain's, and the parameter's. */
export const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const

const event = <N extends string, S extends z.ZodRawShape>(name: N, shape: S) =>
  z.object({ event: z.literal(name), ...shape })

const statusFacts = { statusId: id, accountId: id }
const reblogFacts = { statusId: id, accountId: id, reblogOfId: id, reblogOfAccountId: id }
const favouriteFacts = { favouriteId: id, accountId: id, statusId: id, statusAccountId: id }
/**
 * Facts of relationships that cross servers (docs/federation.md, "Follows across servers"): `uri` is the
 * ActivityPub id of the Follow or Block (a deleted row's is otherwise lost), `fromPeer` says the change came from
 * the other server's own activity, so there is nothing to tell it.
 */
const federated = { uri: z.string().nullish(), fromPeer: z.boolean().optional() }
const followFacts = { followId: id, accountId: id, targetAccountId: id, ...federated }
const requestFacts = { followRequestId: id, accountId: id, targetAccountId: id, ...federated }
const blockFacts = { blockId: id, accountId: id, targetAccountId: id, ...federated }
const muteFacts = { muteId: id, accountId: id, targetAccountId: id }
const quoteFacts = {
  quoteId: id,
  statusId: id,
  accountId: id,
  quotedAccountId: id.nullable(),
  quotedStatusId: id.nullable(),
}
const listMemberFacts = { listAccountId: id, listId: id, accountId: id, targetAccountId: id }

/**
 * Activities: what happened in the accounts app, written by the domain functions in the transaction that made it
 * happen, consumed by the accounts worker (notifications, feeds, …). A payload carries ids, plus the facts a
 * consumer cannot read again because the row is gone (a deleted status's audience). `accountId` is always the
 * actor. Adding an activity is one line here.
 */
export const activity = z.discriminatedUnion('event', [
  // `quotedAccountId`: the author of the post it quotes, addressed as Mastodon's silent mention (docs/statuses.md).
  event('status.created', { ...statusFacts, quotedAccountId: id.optional() }),
  // An edit (docs/statuses.md): `editId` is the version it made (a status_edits row).
  event('status.updated', { ...statusFacts, editId: id }),
  event('status.deleted', {
    ...statusFacts,
    visibility: z.enum(VISIBILITIES),
    inReplyToId: id.nullable(),
    inReplyToAccountId: id.nullable(),
    mentionedAccountIds: z.array(id),
    tags: z.array(z.string()),
    // Remote accounts that boosted, favourited or answered a local public or unlisted post: its Delete reaches them.
    reachedAccountIds: z.array(id).optional(),
  }),
  // A local post pinned or unpinned by its author: an Add or Remove of its `featured` collection goes to the
  // author's followers' servers (docs/federation.md, "Pinned posts and featured hashtags").
  event('status.pinned', statusFacts),
  event('status.unpinned', statusFacts),
  event('reblog.created', reblogFacts),
  event('reblog.removed', reblogFacts),
  event('favourite.created', favouriteFacts),
  event('favourite.removed', favouriteFacts),
  event('follow.created', followFacts),
  event('follow.removed', followFacts),
  event('follow_request.created', requestFacts),
  event('follow_request.authorized', requestFacts),
  event('follow_request.rejected', requestFacts),
  event('follow_request.withdrawn', requestFacts),
  event('block.created', blockFacts),
  event('block.removed', blockFacts),
  event('mute.created', muteFacts),
  event('mute.removed', muteFacts),
  // A report to the moderators: each staff member gets an `admin.report` notification.
  // Votes cast in a poll (one per chosen option): a vote in a remote poll is sent to its author's server, a local
  // poll's new counts to the servers of its audience and voters.
  event('poll.voted', { pollId: id, accountId: id, voteIds: z.array(id) }),
  // A poll's end was reached (`accountId` its author): a local poll's final counts go to other servers.
  event('poll.ended', { pollId: id, accountId: id }),
  // `forwardToDomains` only when the reporter asked to forward a report on a remote account: a Flag goes to the
  // target's server and to the servers among these whose accounts the reported posts replied to.
  event('report.created', {
    reportId: id,
    accountId: id,
    targetAccountId: id,
    forwardToDomains: z.array(z.string()).optional(),
  }),
  // A local account's profile changed: its remote followers' servers are sent an Update (docs/federation.md).
  event('account.updated', { accountId: id }),
  // A profile's fields (local ones saved, remote ones stored) have links to verify (docs/federation.md, "Profile
  // fields"): the worker reads the linked pages for a rel="me" link back.
  event('account.links_changed', { accountId: id }),
  // Other servers' custom emojis whose image is to copy (docs/emoji.md): the remote media consumer queues them.
  event('custom_emojis.linked', { customEmojiIds: z.array(id).min(1) }),
  // Quotes (docs/statuses.md, "Quotes"): a local quote of a remote post asks its server (QuoteRequest); an accepted
  // quote notifies a local quoted author (and, for a local quote, its Note goes out again with its stamp); a
  // revoked one is a Delete of the stamp. `accountId` is the quoter.
  event('quote.requested', quoteFacts),
  event('quote.accepted', quoteFacts),
  event('quote.revoked', quoteFacts),
  // A local account moved away: a Move to its followers' servers (docs/federation.md, "Moved accounts").
  event('account.moved', { accountId: id, targetAccountId: id }),
  // An admin enabled a relay: the instance actor follows it (docs/federation.md, "Relays").
  event('relay.enabled', { relayId: id }),
  // An admin disabled or removed a relay: the Undo of that Follow, with all it needs (the row may be gone).
  event('relay.disabled', {
    relayId: id,
    inbox: z.string(),
    followActivityId: z.string(),
    object: z.string(),
  }),
  // Announcements (docs/discovery.md): the streaming service tells signed-in users (`announcement`,
  // `announcement.delete`, `announcement.reaction`); a consumer re-reads the announcement.
  event('announcement.published', { announcementId: id }),
  event('announcement.deleted', { announcementId: id }),
  event('announcement.reaction', { announcementId: id, accountId: id, name: z.string().max(64) }),
  // A new user (or a sign-up just approved): their home feed starts empty and ready, so fan-out fills it.
  event('home_feed.created', { accountId: id }),
  // A home feed was found missing from Redis (never built, lost, or dropped while its owner was away): rebuild it.
  event('home_feed.missing', { accountId: id }),
  // Lists: `accountId` is the owner; a member added or removed (`targetAccountId`), a list deleted, a list's feed
  // found missing from Redis.
  event('list_account.created', listMemberFacts),
  event('list_account.removed', listMemberFacts),
  event('list.deleted', { listId: id, accountId: id }),
  event('list_feed.missing', { listId: id, accountId: id }),
  // A user's filters (or their keywords or status rules) changed: its `user` stream gets `filters_changed`.
  event('filters.changed', { accountId: id }),
  // A followed hashtag unfollowed: its statuses leave the home feed (unless there for another reason).
  event('tag_follow.removed', { tagFollowId: id, tagId: id, accountId: id }),
])
export type Activity = z.infer<typeof activity>
export type ActivityName = Activity['event']
export type ActivityOf<N extends ActivityName> = Extract<Activity, { event: N }>

export const JOB_NAMES = {
  notificationCreated: 'notification.created',
  notificationsCreated: 'notifications.created',
  activitiesBatch: 'activities.batch',
} as const

/** The most activities one `activities.batch` job carries (`batchActivities`). */
export const ACTIVITIES_PER_JOB = 100

/**
 * The activities of one publication as one job of the `activities` queue (`batchActivities`): each with the job id
 * it would have had alone (`outbox-<row id>`), under which it is retried if it fails (docs/activities.md, "The
 * accounts worker"). Not an outbox event: made by the producers only. A lone activity is a job of its own.
 */
export const activitiesBatch = event(JOB_NAMES.activitiesBatch, {
  activities: z
    .array(z.object({ jobId: z.string().min(1), activity }))
    .min(2)
    .max(ACTIVITIES_PER_JOB),
})
export type ActivitiesBatch = z.infer<typeof activitiesBatch>

/** What the `activities` queue carries: one activity, or a batch of them. */
export const activityJob = z.discriminatedUnion('event', [...activity.options, activitiesBatch])

export const NOTIFICATION_TYPES = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'admin.sign_up',
  'admin.report',
  'quote',
  'quoted_update',
  // An account the recipient follows moved (docs/federation.md, "Moved accounts").
  'move',
] as const
export type NotificationType = (typeof NOTIFICATION_TYPES)[number]

/** The longest push body (Mastodon's `Web::NotificationSerializer` truncates to 140 characters). */
export const PUSH_BODY_LIMIT = 140

/** Rails' `truncate`: at most `limit` characters, the cut ones replaced by "...". */
export function truncate(text: string, limit = PUSH_BODY_LIMIT): string {
  const chars = Array.from(text)
  return chars.length <= limit ? text : `${chars.slice(0, limit - 3).join('')}...`
}

/**
 * The text of a notification as its push shows it: whitespace folded, cut to the push body's 140 characters.
 * Events carry no more than this of a status or bio (docs/security.md, "Queue payloads").
 */
export const pushExcerpt = (text: string) => truncate(text.replace(/\s+/g, ' ').trim())

export const notificationCreated = z.object({
  notificationId: id,
  type: z.enum(NOTIFICATION_TYPES),
  recipientUserId: id,
  recipientAccountId: id,
  recipientLocale: z.string().default('en'),
  senderAccountId: id,
  senderName: z.string(),
  senderAvatarUrl: z.string(),
  /**
   * What the push body shows of the status (its content warning if any) or of the sender's bio: plain text, at
   * most 140 characters. The schema cuts anything longer, so no producer can put more private text on a queue.
   */
  excerpt: z.string().transform(pushExcerpt),
  /** The two facts the push `policy` needs: `followed` and `follower`. */
  recipientFollowsSender: z.boolean(),
  senderFollowsRecipient: z.boolean(),
  createdAt: z.iso.datetime(),
})
export type NotificationCreated = z.infer<typeof notificationCreated>

/**
 * The notifications one activity made for several recipients at once (a status's mentions), as one event: one
 * BullMQ job and one read of the recipients' subscriptions instead of one each (docs/performance.md, "Write
 * path"). A single recipient's notification is a `notification.created`.
 */
export const notificationsCreated = z.object({ notifications: z.array(notificationCreated).min(2) })

/** What the `notifications` queue carries: one notification, or several made together. */
export const notificationEvent = z.discriminatedUnion('event', [
  event(JOB_NAMES.notificationCreated, notificationCreated.shape),
  event(JOB_NAMES.notificationsCreated, notificationsCreated.shape),
])
export type NotificationEvent = z.infer<typeof notificationEvent>

/**
 * What the push worker hears of accounts (queue `account-events`): each ends push subscriptions, a revoked token's or
 * every one of a user. `push_subscriptions.revoked` is a moderator's "unsubscribe from push" (docs/moderation.md).
 */
export const accountEvent = z.discriminatedUnion('event', [
  event('token.revoked', { tokenId: id, userId: id.optional() }),
  event('account.suspended', { userId: id, accountId: id }),
  event('user.deleted', { userId: id }),
  event('push_subscriptions.revoked', { userId: id }),
])
export type AccountEvent = z.infer<typeof accountEvent>

/**
 * Timers: work that must happen at a given moment, `runAt` (docs/activities.md, "Timers"). The outbox publishes
 * them as delayed jobs on the `timers` queue, which the accounts worker consumes; a job that runs early (clocks
 * differ) waits again, and the rows they act on say whether anything is left to do, so a timer run twice does it
 * once.
 */
export const timer = z.discriminatedUnion('event', [
  // A poll's end: `poll` notifications to its author and voters.
  event('poll.expired', { pollId: id, runAt: z.iso.datetime() }),
  // A scheduled status's publication.
  event('scheduled_status.due', { scheduledStatusId: id, runAt: z.iso.datetime() }),
  // A local poll's counts to other servers, once for the votes of a few minutes (docs/federation.md, "Polls").
  // Added by the accounts worker itself, not through the outbox: a lost one is made up for by the next vote's or
  // the poll's end.
  event('poll.distribute', { pollId: id, runAt: z.iso.datetime() }),
  // The daily media cleanup (docs/media.md, "Cleaning the cache"): a BullMQ job scheduler of the accounts worker
  // adds one a day, however many workers run; not through the outbox.
  event('media.cleanup', {}),
])
export type Timer = z.infer<typeof timer>

/**
 * An activity another server posted to one of our inboxes, its HTTP signature verified (docs/federation.md,
 * "Inboxes"): `signerAccountId` is the remote account whose key signed it, which is the activity's actor.
 */
export const inboxActivity = event('inbox.received', {
  signerAccountId: id,
  activity: z.record(z.string(), z.unknown()),
})
export type InboxActivity = z.infer<typeof inboxActivity>

/**
 * Media work (docs/media.md, "Video, audio and GIFs"), on the `media` queue of the accounts worker. `media.uploaded`:
 * an uploaded video, audio file or animated GIF to transcode, written by the upload with its row (the outbox).
 * `media.fetch`: a remote attachment to copy, added by the remote media consumer itself with a deterministic job id
 * (work derived afresh from the status each time, docs/activities.md "Outbox or queue"), and retried with backoff
 * while its server fails.
 */
export const mediaJob = z.discriminatedUnion('event', [
  event('media.uploaded', { mediaAttachmentId: id }),
  event('media.fetch', { mediaAttachmentId: id }),
  // Another server's custom emoji to copy (docs/emoji.md), by the same consumer, with a deterministic job id.
  event('emoji.fetch', { customEmojiId: id }),
])
export type MediaJob = z.infer<typeof mediaJob>

/**
 * Documents read from other servers (queue `fetches`, the accounts worker; docs/federation.md, "What is fetched
 * when"): each job bounded in pages, items, bytes and time, and per domain.
 */
export const fetchJob = z.discriminatedUnion('event', [
  // A remote account's newest posts and its pinned ones: when it is first stored here, or when a local user opens
  // its profile after REMOTE_BACKFILL_STALE_HOURS (docs/federation.md, "Backfill of remote profiles").
  event('fetch.outbox', { accountId: id }),
  // A local user opened the thread of a remote status: its replies (docs/federation.md, "Complete threads");
  // `refreshId` names the async refresh that tells clients when it is done.
  event('fetch.replies', { statusId: id, refreshId: z.string() }),
])
export type FetchJob = z.infer<typeof fetchJob>

/**
 * One signed POST of an activity to one inbox (docs/federation.md, "Delivery"): `body` is the JSON exactly as
 * sent, `accountId` the local account that signs it (null: the instance actor, as for a forwarded report). Added by
 * the accounts worker with a deterministic job id.
 */
export const delivery = z.object({
  inbox: z.string().url(),
  body: z.string(),
  accountId: id.nullable(),
})
export type Delivery = z.infer<typeof delivery>

/**
 * E-mail (queue `mail`, the accounts worker): one event per message and recipient, written in the transaction of
 * the change it tells of, so a mail leaves exactly when its change commits. Ids only: the worker reads the address,
 * locale and names when it sends, and makes the confirmation and reset links then (their tokens never sit in the
 * outbox or in Redis). The `admin_*` mails go to one moderator or admin each (`recipientUserId`).
 */
/**
 * A user's own data (queue `account-data`, the accounts worker; docs/security.md, "Your data"): an archive to build,
 * a CSV import to process, an account its owner deleted to take apart. Ids only: the job reads its row.
 */
export const accountDataJob = z.discriminatedUnion('event', [
  // The zip of one's posts, likes, bookmarks and media (Mastodon's BackupWorker).
  event('archive.requested', { archiveId: id }),
  // The rows of an uploaded CSV (Mastodon's BulkImportWorker and Import::RowWorker).
  event('import.requested', { importId: id }),
  // The owner deleted the account: its data is removed and its Delete sent (Mastodon's DeleteAccountService).
  event('account.deletion_requested', { accountId: id }),
])
export type AccountDataJob = z.infer<typeof accountDataJob>

export const mail = z.discriminatedUnion('event', [
  // An address to confirm: the link (GET /auth/confirmation?confirmation_token=…), at sign-up and on resend.
  event('mail.confirmation', { userId: id }),
  // The account is usable: its address confirmed and, where registrations need it, approved.
  event('mail.welcome', { userId: id }),
  // A password reset was asked for: the link (GET /auth/password/edit?reset_password_token=…).
  event('mail.password_reset', { userId: id }),
  // The password was changed or reset.
  event('mail.password_changed', { userId: id }),
  // To a moderator: a confirmed sign-up waits for approval.
  event('mail.admin_pending_account', { recipientUserId: id, accountId: id }),
  // To a moderator: a new report.
  event('mail.admin_report', { recipientUserId: id, reportId: id }),
  // Two-factor sign-in was turned on or off (docs/security.md, "Two-factor sign-in").
  event('mail.two_factor_enabled', { userId: id }),
  event('mail.two_factor_disabled', { userId: id }),
  // A sign-in from an address not seen lately (Mastodon's suspicious_sign_in): the sign-in's row.
  event('mail.suspicious_sign_in', { userId: id, signInId: id }),
  // A new address was asked for: the link to the new address (`users.unconfirmed_email`), ...
  event('mail.email_change', { userId: id }),
  // ... and a warning to the current one.
  event('mail.email_change_warning', { userId: id }),
  // A moderator acted on the account with a warning (Mastodon's UserMailer#warning): the account_warnings row.
  event('mail.warning', { warningId: id }),
])
export type Mail = z.infer<typeof mail>
export type MailName = Mail['event']

/**
 * Mastodon's admin webhook events (docs/moderation.md, "Webhooks"), as the webhooks page offers them.
 */
export const WEBHOOK_EVENTS = [
  'account.approved',
  'account.created',
  'account.updated',
  'report.created',
  'report.updated',
  'status.created',
  'status.updated',
] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

/**
 * Admin webhooks (queue `webhooks`, the accounts worker): an event happened to an object (an account's id for
 * `account.*`, a report's, a status's), so every enabled webhook subscribed to it gets a delivery; a delivery is
 * one signed POST of the payload rendered when the event was handled, retried on failure.
 */
export const webhookJob = z.discriminatedUnion('event', [
  event('webhook.triggered', { type: z.enum(WEBHOOK_EVENTS), objectId: id, at: z.string() }),
  event('webhook.delivery', { webhookId: id, body: z.string() }),
])
export type WebhookJob = z.infer<typeof webhookJob>

/** Every event the accounts app's outbox carries, and the queue each goes to. */
export const outboxEvent = z.discriminatedUnion('event', [
  ...activity.options,
  ...notificationEvent.options,
  ...accountEvent.options,
  ...timer.options,
  inboxActivity,
  ...mediaJob.options,
  ...fetchJob.options,
  ...mail.options,
  ...accountDataJob.options,
  ...webhookJob.options,
])
export type OutboxEvent = z.infer<typeof outboxEvent>
export type EventName = OutboxEvent['event']

const queues = new Map<string, QueueName>([
  ...activity.options.map((o) => [o.shape.event.value, QUEUES.activities] as const),
  [JOB_NAMES.activitiesBatch, QUEUES.activities],
  [JOB_NAMES.notificationCreated, QUEUES.notifications],
  [JOB_NAMES.notificationsCreated, QUEUES.notifications],
  ...accountEvent.options.map((o) => [o.shape.event.value, QUEUES.accountEvents] as const),
  ...timer.options.map((o) => [o.shape.event.value, QUEUES.timers] as const),
  [inboxActivity.shape.event.value, QUEUES.inbox],
  ...mediaJob.options.map((o) => [o.shape.event.value, QUEUES.media] as const),
  ...fetchJob.options.map((o) => [o.shape.event.value, QUEUES.fetches] as const),
  ...mail.options.map((o) => [o.shape.event.value, QUEUES.mail] as const),
  ...accountDataJob.options.map((o) => [o.shape.event.value, QUEUES.accountData] as const),
  ...webhookJob.options.map((o) => [o.shape.event.value, QUEUES.webhooks] as const),
])
export const queueOf = (name: EventName | ActivitiesBatch['event']): QueueName => queues.get(name)!

/** Redis connection for BullMQ: workers block, so commands must never time out (BullMQ's requirement). */
export function createRedis(url: string, options: { forWorker?: boolean } = {}): Redis {
  return new Redis(url, {
    // Producers give up on a command after a few reconnection attempts (the outbox keeps the event); commands sent
    // before the connection is up wait for it rather than failing.
    maxRetriesPerRequest: options.forWorker ? null : 3,
  })
}

/**
 * A finished job is kept a minute (Bull Board shows recent work) and then removed with its payload: queues are
 * not an archive of who notified whom about what. Consumers never rely on a finished job for deduplication.
 */
export const COMPLETED_JOB_RETENTION = { age: 60, count: 1000 }

/** A failed job's next attempt after 1 s, then 2 s, 4 s, … */
export const RETRY_BACKOFF = { type: 'exponential', delay: 1000 }

export const defaultJobOptions: JobsOptions = {
  attempts: 5,
  backoff: RETRY_BACKOFF,
  removeOnComplete: COMPLETED_JOB_RETENTION,
  removeOnFail: { age: 7 * 24 * 3600 },
}

/**
 * Webhook jobs (their deliveries too, which the worker adds itself): a receiver down for a while gets the event
 * later, after about an hour of retries at most (docs/moderation.md, "Webhooks").
 */
export const webhookJobOptions: JobsOptions = { ...defaultJobOptions, attempts: 12 }

/**
 * Activities are retried for about an hour (1 s, 2 s, … 34 min): a Postgres outage must delay their effects,
 * never drop them. The accounts worker adds the activities that failed in a batch with them too.
 */
export const activityJobOptions: JobsOptions = {
  ...defaultJobOptions,
  attempts: 12,
  removeOnComplete: { age: 3600, count: 10_000 },
}

const jobOptions: Partial<Record<QueueName, JobsOptions>> = {
  [QUEUES.activities]: activityJobOptions,
  [QUEUES.timers]: { ...defaultJobOptions, attempts: 12 },
  [QUEUES.inbox]: { ...defaultJobOptions, attempts: 12 },
  // A transcode that fails does not fail better the next time: the job marks the attachment failed itself and
  // only what failed around it (reading the file, the database) is tried again, a few times.
  [QUEUES.media]: { ...defaultJobOptions, attempts: 3 },
  // A server that cannot be read now is not asked again and again: one more try, then the profile stays as it is.
  [QUEUES.fetches]: { ...defaultJobOptions, attempts: 2 },
  // An SMTP server down or refusing for a while (4xx) delays mail by up to about an hour, as activities.
  [QUEUES.mail]: { ...defaultJobOptions, attempts: 12 },
  // Each job picks up where a failed run stopped (the rows say what is left), so retrying is always safe.
  [QUEUES.accountData]: { ...defaultJobOptions, attempts: 8 },
  [QUEUES.webhooks]: webhookJobOptions,
}

/** How long from now a timer's job waits (none for other events, or a moment already past). */
export const delayOf = (e: OutboxEvent | ActivitiesBatch, now = Date.now()) =>
  'runAt' in e ? Math.max(0, Date.parse(e.runAt) - now) : 0

/** The most notifications one merged `notifications.created` job carries (`mergeNotifications`). */
export const NOTIFICATIONS_PER_JOB = 100

type Publication<E = OutboxEvent> = { event: E; jobId: string }

/**
 * The events of one publication that `sizeOf` counts (the others stay as they are), grouped in their order into as
 * few jobs as hold them, at most `limit` of what `sizeOf` counts each (an event larger than that stays whole and
 * alone). A group of one event stays that event; a larger one becomes `merge` of its events, at its first event's
 * place, under an id made of the ids of its events (`<first id>+<how many more>-<digest>`): the same events
 * published again are still one job, and events published again in other company (a crash before the relay marked
 * them, a replay after Redis lost its data) make another job, which consumers idempotent by design handle again to
 * no effect.
 */
function grouped<E, G>(
  publications: Publication<E>[],
  sizeOf: (e: E) => number,
  limit: number,
  merge: (group: Publication<E>[]) => G,
): Publication<E | G>[] {
  const out: Publication<E | G>[] = []
  let group: Publication<E>[] = []
  let size = 0
  let slot = 0 // where the group goes: at its first event's place
  const close = () => {
    if (group.length === 1) out[slot] = group[0]!
    else if (group.length > 1) {
      const ids = group.map((p) => p.jobId)
      const digest = createHash('sha256').update(ids.join(' ')).digest('hex').slice(0, 16)
      out[slot] = { event: merge(group), jobId: `${ids[0]}+${ids.length - 1}-${digest}` }
    }
    group = []
    size = 0
  }
  for (const p of publications) {
    const count = sizeOf(p.event)
    if (!count) {
      out.push(p)
      continue
    }
    if (size + count > limit) close()
    if (!group.length) slot = out.push(p) - 1
    group.push(p)
    size += count
  }
  close()
  return out
}

/**
 * The notification events of one publication, merged into as few `notifications.created` jobs as hold them (at most
 * NOTIFICATIONS_PER_JOB notifications each); the other events as they are. A push fan-out job costs mostly per job
 * (BullMQ's round trips, the subscriptions read, the claims), and under load the relay's batch holds the
 * notifications of several posts (docs/performance.md, "Write path"). A merged notification published again in
 * other company is pushed once all the same: the push worker finds it claimed or already sent (docs/security.md,
 * "Push delivery: nothing lost, nothing twice").
 */
export function mergeNotifications(publications: Publication[]): Publication[] {
  return grouped(
    publications,
    (e) => notificationsOf(e).length,
    NOTIFICATIONS_PER_JOB,
    (group) => ({
      event: JOB_NAMES.notificationsCreated,
      notifications: group.flatMap((p) => notificationsOf(p.event)),
    }),
  )
}

const isActivity = (e: OutboxEvent): e is Activity => queueOf(e.event) === QUEUES.activities

/**
 * The activities of one publication as `activities.batch` jobs of at most ACTIVITIES_PER_JOB activities, in their
 * order; the other events as they are. An activity job costs BullMQ about seven round trips and fifty commands in
 * its scripts whatever it holds, and under load the relay's batch holds the activities of several posts
 * (docs/performance.md, "Write path"). Each activity keeps the job id it has alone: an activity that fails in its
 * batch is retried as a job of its own under that id (docs/activities.md, "The accounts worker").
 */
export function batchActivities(publications: Publication[]): Publication<OutboxEvent | ActivitiesBatch>[] {
  return grouped(
    publications,
    (e) => (isActivity(e) ? 1 : 0),
    ACTIVITIES_PER_JOB,
    (group): ActivitiesBatch => ({
      event: JOB_NAMES.activitiesBatch,
      activities: group.map((p) => ({ jobId: p.jobId, activity: p.event as Activity })),
    }),
  )
}

/** The notifications an event carries (none for any other event). */
function notificationsOf(e: OutboxEvent): NotificationCreated[] {
  if (e.event === JOB_NAMES.notificationsCreated) return e.notifications
  if (e.event !== JOB_NAMES.notificationCreated) return []
  const { event: _, ...notification } = e
  return [notification]
}

/**
 * The queues the outbox publishes to. `jobId` makes every add idempotent: an event published twice (a crash
 * between publishing and marking it published) is still one job.
 */
export function createProducers(connection: ConnectionOptions | Redis, redisPrefix: string) {
  const prefix = bullPrefix(redisPrefix)
  const open = new Map<QueueName, Queue>()
  const queue = (name: QueueName) => {
    let q = open.get(name)
    if (!q) {
      q = new Queue(name, { connection, prefix, defaultJobOptions: jobOptions[name] ?? defaultJobOptions })
      // A lost connection shows as a rejected `publish` (the outbox keeps the events), not as an unhandled error.
      q.on('error', () => {})
      open.set(name, q)
    }
    return q
  }
  return {
    /**
     * Adds the events, each validated, one bulk add per queue; notifications merged (`mergeNotifications`),
     * activities batched (`batchActivities`).
     */
    async publish(events: Publication[]) {
      const byQueue = new Map<
        QueueName,
        { name: string; data: OutboxEvent | ActivitiesBatch; opts: JobsOptions }[]
      >()
      const valid = events.map((e) => ({ event: outboxEvent.parse(e.event), jobId: e.jobId }))
      for (const { event: data, jobId } of batchActivities(mergeNotifications(valid))) {
        const name = queueOf(data.event)
        if (!byQueue.has(name)) byQueue.set(name, [])
        const delay = delayOf(data)
        byQueue.get(name)!.push({ name: data.event, data, opts: { jobId, ...(delay ? { delay } : {}) } })
      }
      for (const [name, jobs] of byQueue) await queue(name).addBulk(jobs)
    },
    async close() {
      await Promise.all([...open.values()].map((q) => q.close()))
    },
  }
}
export type Producers = ReturnType<typeof createProducers>

export * from './outages'
export * from './queues'
export * from './streaming'
export * from './workers'
