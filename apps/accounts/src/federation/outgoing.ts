import { createHash } from 'node:crypto'
import type { Queue } from 'bullmq'
import type { Delivery } from '@roost/events'
import type { AccountRow, Urls } from '../entities/account'
import { AS } from '../api/federation/activity-json'
import type { Federation } from './transport/client'
import { isUnavailable } from './transport/delivery-failures'
import { isDomainBlocked } from './domain-blocks'
import { domainOf } from './remote-accounts'
import { actorUriOf, instanceActorUri } from './uris'

/**
 * The activities Roost sends about relationships (docs/federation.md, "Follows across servers"), shaped as
 * Mastodon's serializers shape them (FollowSerializer, AcceptFollowSerializer, RejectFollowSerializer,
 * UndoFollowSerializer, BlockSerializer, UndoBlockSerializer, FlagSerializer), and their delivery as jobs of the
 * accounts worker.
 */

type Actor = Pick<AccountRow, 'username' | 'uri'>

/** The id of a Follow a local account sends (it names the request row it came from). */
export const followUri = (urls: Urls, actor: Actor, followRequestId: string) =>
  `${actorUriOf(urls, actor)}#follows/${followRequestId}`

const followObject = (urls: Urls, follower: Actor, followed: Actor, uri: string | null | undefined) => ({
  ...(uri ? { id: uri } : {}),
  type: 'Follow',
  actor: actorUriOf(urls, follower),
  object: actorUriOf(urls, followed),
})

export const renderFollow = (urls: Urls, follower: Actor, followed: Actor, uri: string) => ({
  '@context': AS,
  ...followObject(urls, follower, followed, uri),
})

/** Accept or Reject of a Follow `follower` sent to the local `followed`; `key` makes the id unique. */
export const renderFollowAnswer = (
  type: 'Accept' | 'Reject',
  urls: Urls,
  follower: Actor,
  followed: Actor,
  uri: string | null | undefined,
  key: string,
) => ({
  '@context': AS,
  id: `${actorUriOf(urls, followed)}#${type === 'Accept' ? 'accepts' : 'rejects'}/follows/${key}`,
  type,
  actor: actorUriOf(urls, followed),
  object: followObject(urls, follower, followed, uri),
})

export const renderUndoFollow = (
  urls: Urls,
  follower: Actor,
  followed: Actor,
  uri: string | null | undefined,
  key: string,
) => ({
  '@context': AS,
  id: `${actorUriOf(urls, follower)}#follows/${key}/undo`,
  type: 'Undo',
  actor: actorUriOf(urls, follower),
  object: followObject(urls, follower, followed, uri),
})

const blockObject = (urls: Urls, blocker: Actor, blocked: Actor, blockId: string) => ({
  id: `${actorUriOf(urls, blocker)}#blocks/${blockId}`,
  type: 'Block',
  actor: actorUriOf(urls, blocker),
  object: actorUriOf(urls, blocked),
})

export const renderBlock = (urls: Urls, blocker: Actor, blocked: Actor, blockId: string) => ({
  '@context': AS,
  ...blockObject(urls, blocker, blocked, blockId),
})

export const renderUndoBlock = (urls: Urls, blocker: Actor, blocked: Actor, blockId: string) => ({
  '@context': AS,
  id: `${actorUriOf(urls, blocker)}#blocks/${blockId}/undo`,
  type: 'Undo',
  actor: actorUriOf(urls, blocker),
  object: blockObject(urls, blocker, blocked, blockId),
})

/**
 * A report forwarded to the reported account's server (Mastodon's FlagSerializer): sent by the instance actor, so
 * the reporter stays anonymous there; the object is the account and then the reported posts.
 */
export const renderFlag = (
  urls: Urls,
  reportId: string,
  comment: string,
  target: Actor,
  statusUris: string[],
) => ({
  '@context': AS,
  id: `${urls.base}/reports/${reportId}`,
  type: 'Flag',
  actor: instanceActorUri(urls),
  content: comment,
  object: [actorUriOf(urls, target), ...statusUris],
})

/**
 * The inboxes that reach `recipients`: the personal inbox of a single recipient (as Mastodon sends a Follow or a
 * Block), the shared inbox of each host when several are addressed, each inbox once.
 */
export function inboxesOf(recipients: AccountRow[]): string[] {
  const remote = [
    // An account listed twice (a follower who is also mentioned) is one recipient.
    ...new Map(recipients.filter((r) => r.domain && r.inbox_url).map((r) => [r.inbox_url, r])).values(),
  ]
  const shared = remote.length > 1
  return [...new Set(remote.map((r) => (shared && r.shared_inbox_url) || r.inbox_url!))]
}

/** Delivery attempts per inbox: with the exponential backoff, retries span about a week at the default base. */
export const DELIVERY_ATTEMPTS = 14

export type Deliver = (
  activity: Record<string, unknown>,
  /** The local account that signs; null: the instance actor. */
  senderId: string | null,
  recipients: AccountRow[],
  key: string,
) => Promise<void>

/**
 * Queues one delivery job per inbox of `recipients` (hosts found unavailable, and suspended ones, are skipped). `key` names the
 * activity, so that the same activity queued twice (a job run again) is one job per inbox.
 */
export function createDeliver(fed: Federation, queue: Queue, retryBaseMs: number): Deliver {
  return async (activity, senderId, recipients, key) => {
    const body = JSON.stringify(activity)
    const jobs: { name: string; data: Delivery; opts: Record<string, unknown> }[] = []
    for (const inbox of inboxesOf(recipients)) {
      if (await isUnavailable(fed.db, domainOf(inbox))) continue
      // Nothing goes to a suspended server (domain-blocks.ts).
      if (await isDomainBlocked(fed.db, domainOf(inbox))) continue
      const hash = createHash('sha256').update(inbox).digest('hex').slice(0, 16)
      jobs.push({
        name: 'delivery',
        data: { inbox, body, accountId: senderId },
        opts: {
          jobId: `${key}-${hash}`,
          attempts: DELIVERY_ATTEMPTS,
          backoff: { type: 'exponential', delay: retryBaseMs },
          removeOnComplete: { age: 60, count: 1000 },
          removeOnFail: { age: 7 * 24 * 3600 },
        },
      })
    }
    if (jobs.length) await queue.addBulk(jobs)
  }
}
