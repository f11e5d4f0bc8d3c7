import type { Knex } from '@roost/db'
import type { AccountRow, FollowRequestRow, StatusRow } from '../../db/rows'
import { blockedDomains, domainBlockCovers } from '../../queries/relationships'
import { unfavourite } from '../../domain/favourites'
import * as relationships from '../../domain/relationships'
import { deleteStatus } from '../../domain/statuses'
import * as outbox from '../../outbox/outbox'
import { findLocalAccount } from '../../queries/accounts'
import type { Federation } from '../transport/client'
import { domainPolicy } from '../domain-blocks'
import type { Deliver } from '../transport/delivery-queue'
import { renderFollowAnswer } from '../render/activities'
import {
  announce,
  createRemoteStatus,
  deleteRemoteStatus,
  flag,
  idOf,
  isNoteLike,
  like,
  pollVote,
  sameHost,
  undoStatusActivity,
  updateRemoteStatus,
} from './statuses'
import { RemoteAccountError, storeActor } from '../remote-accounts'
import { lockActor, markUndone, undone } from './tombstones'
import { move } from './move'
import { featuredChange } from './featured'
import { verifiedAuthor } from '../integrity/authors'
import { forwardReply } from '../integrity/forwarding'
import { quoteAnswer, quoteRequest, stampDeleted } from './quotes'
import { relayActivity, relayOf } from '../relays'

/**
 * What an activity from another server does (docs/federation.md, "Inboxes"), run by the accounts worker on the
 * `inbox` queue once the inbox has verified who signed it. As Mastodon's ActivityPub::Activity::* classes for
 * Follow, Accept, Reject, Undo, Block, Update and Delete (of the actor), and, with statuses.ts, Create, Update and
 * Delete of statuses, Announce, Like, their Undo, and Flag; other types are ignored.
 * Every change goes through the same domain functions as the client API, marked `fromPeer`.
 */
export async function processActivity(
  fed: Federation,
  deliver: Deliver,
  signer: AccountRow,
  activity: Record<string, unknown>,
) {
  // A replay of an activity already handled (same id) does nothing (docs/federation.md, "Incoming statuses").
  const id = idOf(activity.id)
  if (id && (await fed.db('inbox_activities').where({ uri: id }).first('uri'))) return
  // Everything a relay sends is read as a relay's (docs/federation.md, "Relays"): never a boost by the relay, and
  // the posts it passes on taken from their own servers.
  const relay = await relayOf(fed.db, signer)
  if (relay) await relayActivity(fed, deliver, relay, signer, activity)
  else if (idOf(activity.actor) === signer.uri) await handle(fed, deliver, signer, activity, activity)
  else await relayed(fed, deliver, signer, activity)
  if (id) await fed.db('inbox_activities').insert({ uri: id }).onConflict('uri').ignore()
}

/**
 * An activity another server forwarded or relayed (its actor is not the signer of the request; docs/federation.md,
 * "Forwarded activities"), as Mastodon's ProcessCollectionService: done as its actor's only when the actor's
 * Linked Data signature or integrity proof verifies (and then only what the signature covers); otherwise it is
 * dropped, as Mastodon does (a registered relay's activities never come here: relayActivity above).
 */
async function relayed(
  fed: Federation,
  deliver: Deliver,
  relay: AccountRow,
  activity: Record<string, unknown>,
) {
  const verified = await verifiedAuthor(fed, activity)
  if (verified) {
    fed.logger.debug(
      { actor: verified.author.uri, relay: relay.uri, by: verified.by },
      'forwarded activity verified',
    )
    return handle(fed, deliver, verified.author, verified.activity, activity)
  }
  // Mastodon drops it (ProcessCollectionService: `different_actor? && verify_account!.nil?`), whatever it is; the
  // post, if it matters here, comes by its author's own delivery or a fetch when someone asks for it.
  fed.logger.info(
    { actor: idOf(activity.actor), relay: relay.uri, type: activity.type },
    'forwarded activity not signed by its actor: dropped',
  )
}

async function handle(
  fed: Federation,
  deliver: Deliver,
  signer: AccountRow,
  activity: Record<string, unknown>,
  original: Record<string, unknown>,
) {
  const type = activity.type
  const object = activity.object
  switch (type) {
    case 'Create': {
      const status = await create(fed, signer, object)
      if (status) await forwardReply(fed, deliver, signer, status, original)
      return
    }
    case 'Announce':
      return announce(fed, signer, activity)
    case 'Like':
      return like(fed, signer, activity)
    case 'Flag':
      // An admin domain block with reject_reports drops the host's reports (docs/federation.md, "Domain blocks").
      if ((await domainPolicy(fed.db, signer.domain)).rejectReports) return
      return flag(fed, signer, activity)
    case 'Follow':
      return follow(fed, deliver, signer, activity)
    case 'Accept':
      if (await quoteAnswer(fed, signer, activity, true)) return
      return answer(fed, signer, object, true)
    case 'Reject':
      if (await quoteAnswer(fed, signer, activity, false)) return
      return answer(fed, signer, object, false)
    case 'QuoteRequest':
      return quoteRequest(fed, deliver, signer, activity)
    case 'Undo':
      await undoStatusActivity(fed, signer, object)
      return undo(fed, signer, object)
    case 'Block':
      return block(fed, signer, activity)
    case 'Update':
      return update(fed, signer, object)
    case 'Delete':
      if (await stampDeleted(fed, signer, object)) return
      return deleteActor(fed, signer, object)
    case 'Move':
      return move(fed, signer, activity)
    case 'Add':
      return featuredChange(fed, signer, activity, true)
    case 'Remove':
      return featuredChange(fed, signer, activity, false)
    default:
      fed.logger.debug({ type, actor: signer.uri }, 'activity type not handled')
  }
}

const typeOf = (v: unknown) => (v && typeof v === 'object' ? (v as { type?: unknown }).type : undefined)

/** The local account an ActivityPub id or profile URL of ours names, if any. */
export async function localAccountOf(
  fed: Federation,
  uri: string | undefined,
): Promise<AccountRow | undefined> {
  if (!uri) return undefined
  const base = fed.urls.base
  const m = uri.startsWith(`${base}/`)
    ? /^\/(?:users\/|@)([A-Za-z0-9_]+)$/.exec(uri.slice(base.length))
    : null
  return m ? findLocalAccount(fed.db, m[1]!) : undefined
}

/** Mastodon's ActivityPub::Activity::Follow. */
async function follow(
  fed: Federation,
  deliver: Deliver,
  signer: AccountRow,
  activity: Record<string, unknown>,
) {
  const target = await localAccountOf(fed, idOf(activity.object))
  const uri = idOf(activity.id)
  if (!target || !uri) return
  const reject = () =>
    deliver(
      renderFollowAnswer('Reject', fed.urls, signer, target, uri, `refused-${signer.id}`),
      target.id,
      [signer],
      `reject-${target.id}-${signer.id}-${Date.now()}`,
    )
  if (
    target.suspended_at ||
    (await relationships.blocks(fed.db, target.id, signer.id)) ||
    domainBlockCovers(await blockedDomains(fed.db, target.id), signer.domain)
  )
    return reject()
  const outcome = await fed.db.transaction(async (trx) => {
    await lockActor(trx, signer.id)
    if (await undone(trx, signer.id, uri)) return {}
    const existing = await trx('follows')
      .where({ account_id: signer.id, target_account_id: target.id })
      .first('id')
    if (existing) {
      // Already following: the peer lost our Accept, or follows again; answer again (Mastodon does).
      await trx('follows').where({ id: existing.id }).update({ uri })
      return { accept: existing.id as string }
    }
    if (target.locked) {
      const [row] = await trx('follow_requests')
        .insert({ account_id: signer.id, target_account_id: target.id, uri })
        .onConflict(['account_id', 'target_account_id'])
        .merge(['uri'])
        .returning(['id', trx.raw('(xmax = 0) AS inserted')])
      if (row.inserted)
        await outbox.add(trx, {
          event: 'follow_request.created',
          followRequestId: row.id,
          accountId: signer.id,
          targetAccountId: target.id,
          uri,
          fromPeer: true,
        })
      return {}
    }
    // The Accept goes out with the follow.created activity (activities/federation.ts).
    await relationships.createFollow(trx, signer.id, target.id, {}, { uri, fromPeer: true })
    return {}
  })
  if (outcome.accept)
    await deliver(
      renderFollowAnswer('Accept', fed.urls, signer, target, uri, outcome.accept),
      target.id,
      [signer],
      `accept-again-${outcome.accept}-${Date.now()}`,
    )
}

/**
 * Mastodon's Accept and Reject of a Follow: the object is the Follow (embedded or its id); the request it answers
 * is found by that id, else by the pair (local follower, signer).
 */
async function answer(fed: Federation, signer: AccountRow, object: unknown, accepted: boolean) {
  if (typeOf(object) !== undefined && typeOf(object) !== 'Follow') return
  const followId = idOf(object)
  const embeddedFollower =
    object && typeof object === 'object' ? idOf((object as { actor?: unknown }).actor) : undefined
  await fed.db.transaction(async (trx) => {
    let request: FollowRequestRow | undefined = followId
      ? await trx('follow_requests').where({ uri: followId, target_account_id: signer.id }).first()
      : undefined
    const follower = request
      ? await trx('accounts').where({ id: request.account_id }).first()
      : await localAccountOf(fed, embeddedFollower)
    if (!follower) return
    request ??= await trx('follow_requests')
      .where({ account_id: follower.id, target_account_id: signer.id })
      .first()
    if (accepted) {
      if (request) await relationships.acceptFollowRequest(trx, request, { fromPeer: true })
      return
    }
    // A Reject ends a pending request, or an accepted follow (the peer's "remove from followers").
    await relationships.unfollow(trx, follower.id, signer.id, { fromPeer: true })
    if (request)
      await relationships.deleteFollowRequest(trx, follower.id, signer.id, 'rejected', { fromPeer: true })
  })
}

/**
 * Mastodon's Undo of a Follow or a Block (embedded, or named by its id). When there is nothing to undo yet, the
 * Follow or Block may still be on its way through the queue: its id is marked, and it does nothing when it comes.
 */
async function undo(fed: Federation, signer: AccountRow, object: unknown) {
  const uri = idOf(object)
  const type = typeOf(object)
  const target = await localAccountOf(
    fed,
    object && typeof object === 'object' ? idOf((object as { object?: unknown }).object) : undefined,
  )
  await fed.db.transaction(async (trx) => {
    await lockActor(trx, signer.id)
    const byUri = async (table: string) =>
      uri ? await trx(table).where({ uri, account_id: signer.id }).first('target_account_id') : undefined
    const exists = (table: string, targetId: string) =>
      trx(table).where({ account_id: signer.id, target_account_id: targetId }).first('id')
    let found = false
    if (type === 'Follow' || type === undefined) {
      const targetId =
        target?.id ??
        (await byUri('follows'))?.target_account_id ??
        (await byUri('follow_requests'))?.target_account_id
      if (targetId && ((await exists('follows', targetId)) || (await exists('follow_requests', targetId)))) {
        found = true
        await relationships.unfollow(trx, signer.id, targetId, { fromPeer: true })
      }
    }
    if (type === 'Block' || type === undefined) {
      const targetId = target?.id ?? (await byUri('blocks'))?.target_account_id
      if (targetId && (await exists('blocks', targetId))) {
        found = true
        await relationships.unblock(trx, signer.id, targetId, { fromPeer: true })
      }
    }
    if (!found && uri) await markUndone(trx, signer.id, uri)
  })
}

/** Mastodon's ActivityPub::Activity::Block: the follows both ways end, the block is kept (it hides them). */
async function block(fed: Federation, signer: AccountRow, activity: Record<string, unknown>) {
  const target = await localAccountOf(fed, idOf(activity.object))
  if (!target) return
  const uri = idOf(activity.id)
  await fed.db.transaction(async (trx) => {
    await lockActor(trx, signer.id)
    if (uri && (await undone(trx, signer.id, uri))) return
    await relationships.block(trx, signer.id, target.id, { uri, fromPeer: true })
  })
}

/**
 * Mastodon's Create: a Note (Question, Article, Page) of the signer, embedded or fetched once by its URI
 * (statuses.ts); the object's `attributedTo` must be the signer.
 */
async function create(fed: Federation, signer: AccountRow, object: unknown): Promise<StatusRow | undefined> {
  const uri = idOf(object)
  if (!uri || !sameHost(uri, signer.uri!)) return
  const note = isNoteLike(object)
    ? object
    : typeof object === 'string'
      ? await fed.fetchJson(uri).catch(() => undefined)
      : undefined
  if (!isNoteLike(note) || idOf(note) !== uri) return
  if (idOf(Array.isArray(note.attributedTo) ? note.attributedTo[0] : note.attributedTo) !== signer.uri) return
  if (await pollVote(fed, signer, note)) return
  return createRemoteStatus(fed, signer, note)
}

/** Update of a Note of the signer (statuses.ts), or of the actor itself: its profile is stored again. */
async function update(fed: Federation, signer: AccountRow, object: unknown) {
  if (isNoteLike(object)) return updateRemoteStatus(fed, signer, object)
  if (!object || typeof object !== 'object' || idOf(object) !== signer.uri) return
  try {
    await storeActor(fed.db, object as Record<string, unknown>, signer.uri!)
  } catch (err) {
    if (err instanceof RemoteAccountError) fed.logger.info({ err, actor: signer.uri }, 'Update refused')
    else throw err
  }
}

/** Rows a Delete of an actor removes per transaction: a large account goes in many short transactions. */
export const ACTOR_DELETION_BATCH = 100

/**
 * Delete of the actor itself (docs/federation.md, "Inboxes"), as Mastodon's DeleteAccountService for a remote
 * account: its follows and requests both ways end, its favourites and statuses (with the reblogs of them) are
 * deleted through the domain functions, so that counts, feeds, notifications and streams follow, and then the
 * account row, which takes with it what is left that names it (blocks, mutes, mentions, notifications from it,
 * list memberships; every reference cascades). A later activity from the same URI fetches the actor anew.
 *
 * The work goes in transactions of at most ACTOR_DELETION_BATCH rows, each under the actor's lock, so that an
 * account with a hundred thousand statuses holds no lock and no transaction for minutes; a job that dies between
 * two picks up where they stopped when it runs again, as each step takes only what is still there.
 */
async function deleteActor(fed: Federation, signer: AccountRow, object: unknown) {
  // A status or boost of the signer (its URI, or a Tombstone).
  if (idOf(object) !== signer.uri) return deleteRemoteStatus(fed, signer, idOf(object))
  let before = Infinity
  for (;;) {
    const left = await fed.db.transaction((trx: Knex) => deleteActorBatch(trx, signer.id))
    if (left === 0) return
    // A step that took rows but removed none would come back to them for ever.
    if (left >= before) throw new Error(`deleting ${signer.uri} makes no progress (${left} rows left)`)
    before = left
  }
}

/** One transaction of an actor's deletion; the rows still to go after it, 0 once the account is gone. */
async function deleteActorBatch(trx: Knex, accountId: string): Promise<number> {
  await lockActor(trx, accountId)
  if (!(await trx('accounts').where({ id: accountId }).first('id'))) return 0
  const fromPeer = { fromPeer: true }
  let left = ACTOR_DELETION_BATCH
  /** Runs `each` on up to `left` rows of `query`; false once the batch is full. */
  const step = async <T>(query: Knex.QueryBuilder, each: (row: T) => Promise<unknown>) => {
    const rows: T[] = await query.limit(left)
    for (const row of rows) await each(row)
    left -= rows.length
    return left > 0
  }
  const done =
    (await step(trx('follows').where({ account_id: accountId }).pluck('target_account_id'), (id: string) =>
      relationships.unfollow(trx, accountId, id, fromPeer),
    )) &&
    (await step(trx('follows').where({ target_account_id: accountId }).pluck('account_id'), (id: string) =>
      relationships.unfollow(trx, id, accountId, fromPeer),
    )) &&
    (await step(
      trx('follow_requests').where({ account_id: accountId }).pluck('target_account_id'),
      (id: string) => relationships.unfollow(trx, accountId, id, fromPeer),
    )) &&
    (await step(
      trx('follow_requests').where({ target_account_id: accountId }).pluck('account_id'),
      (id: string) => relationships.deleteFollowRequest(trx, id, accountId, 'rejected', fromPeer),
    )) &&
    (await step(
      trx('statuses')
        .join('favourites', 'favourites.status_id', 'statuses.id')
        .where('favourites.account_id', accountId)
        .select('statuses.*'),
      (status: StatusRow) => unfavourite(trx, accountId, status),
    )) &&
    // Newest first; a reblog of its own post goes with the post.
    (await step(
      trx('statuses').where({ account_id: accountId }).orderBy('id', 'desc').pluck('id'),
      async (id) => {
        const status: StatusRow | undefined = await trx('statuses').where({ id }).first()
        if (status) await deleteStatus(trx, status)
      },
    ))
  if (!done) return remainingOfActor(trx, accountId)
  // Replies to it stay, as Mastodon's, no longer naming it.
  await trx('statuses').where({ in_reply_to_account_id: accountId }).update({ in_reply_to_account_id: null })
  await trx('accounts').where({ id: accountId }).delete()
  return 0
}

/** What deleteActorBatch has still to remove for an account (at least 1: the account row). */
async function remainingOfActor(trx: Knex, accountId: string): Promise<number> {
  // One statement: a transaction is one connection, which would run four one after the other anyway.
  const { rows } = await trx.raw<{ rows: { n: string }[] }>(
    `SELECT (SELECT count(*) FROM follows WHERE account_id = :id OR target_account_id = :id)
          + (SELECT count(*) FROM follow_requests WHERE account_id = :id OR target_account_id = :id)
          + (SELECT count(*) FROM favourites WHERE account_id = :id)
          + (SELECT count(*) FROM statuses WHERE account_id = :id) AS n`,
    { id: accountId },
  )
  return 1 + Number(rows[0]!.n)
}
