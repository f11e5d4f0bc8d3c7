import type { Knex } from '@roost/db'
import { accountsById } from '../queries/accounts'
import type { AccountRow, PollRow, ReportRow, StatusRow } from '../db/rows'
import { renderActor, renderActorUpdate } from '../federation/render/actor'
import type { Federation } from '../federation/transport/client'
import { localKeyPair } from '../federation/transport/keys'
import type { Deliver } from '../federation/transport/delivery-queue'
import {
  followUri,
  renderAnnounce,
  renderBlock,
  renderCreate,
  renderDelete,
  renderFlag,
  renderFollow,
  renderFollowAnswer,
  renderLike,
  renderUndoAnnounce,
  renderUndoBlock,
  renderUndoFollow,
  renderUndoLike,
  renderUpdate,
  renderVote,
} from '../federation/render/activities'
import { interactedRemoteAccounts, mentionedAccounts } from '../domain/statuses'
import { renderNotes } from '../federation/render/note'
import { remoteAccounts, remoteFollowers, statusAudience } from '../federation/audience'
import { actorUriOf, objectUriOf, statusUri } from '../federation/uris'
import { createReads } from '../domain/reads'
import { AS } from '../federation/render/contexts'
import type { Reads } from '../domain/reads'
import type { Consumer } from './consumer'
import { quoteFederation } from './quotes'
import { relayRecipients } from '../federation/relays'
import { signLd } from '../federation/integrity/ld-signatures'

/** The accounts the earlier versions of a local status mentioned (its status_edits). */
async function mentionedBefore(db: Knex, statusId: string): Promise<string[]> {
  const versions: { text: string }[] = await db('status_edits')
    .where({ status_id: statusId })
    .distinct('text')
  const accounts = await Promise.all(versions.map((v) => mentionedAccounts(db, v.text)))
  return accounts.flat().map((a) => a.id)
}

/**
 * Tells other servers of relationship changes between a local and a remote account (docs/federation.md,
 * "Follows across servers"), as Mastodon's FollowService, UnfollowService, AuthorizeFollowService,
 * RejectFollowService, BlockService and UnblockService do: each activity becomes one delivery job per inbox.
 * Changes that came from the peer's own activity (`fromPeer`) are not echoed back to it.
 */
/**
 * The activity with its author's Linked Data signature (RsaSignature2017, as Mastodon signs public posts' activities
 * so that they can be forwarded; docs/federation.md, "Forwarded activities"); unsigned if it cannot be signed.
 */
async function ldSigned(
  fed: Federation,
  activity: Record<string, unknown>,
  accountId: string,
  actor: string,
) {
  try {
    const keys = await localKeyPair(fed.db, accountId)
    return await signLd(activity, `${actor}#main-key`, keys.privateKey)
  } catch (err) {
    fed.logger.warn({ err, id: activity.id }, 'activity sent without its LD signature')
    return activity
  }
}

export function federationConsumer(
  fed: Federation,
  deliver: Deliver,
  /** Asks for `distributePoll` of a local poll a few minutes from now, once however often it is asked meanwhile. */
  pollUpdateSoon: (pollId: string) => Promise<void>,
): Consumer & { distributePoll(pollId: string, key: string): Promise<void> } {
  const { urls } = fed
  /** The local and the remote account of a pair, in the order given, or undefined if it is not such a pair. */
  const pair = async (db: Knex, localId: string, remoteId: string) => {
    if (!fed.enabled) return undefined
    const byId = await accountsById(db, [localId, remoteId])
    const local = byId.get(localId)
    const remote = byId.get(remoteId)
    if (!local || local.domain || !remote?.domain) return undefined
    return [local, remote] as [AccountRow, AccountRow]
  }

  /** A local account (undefined when federation is off, or the account is remote or gone). */
  const localAccount = async (id: string): Promise<AccountRow | undefined> =>
    fed.enabled ? fed.db('accounts').where({ id }).whereNull('domain').first() : undefined
  /** A status with its author, when it still exists. */
  const statusWithAuthor = async (id: string) => {
    const status: StatusRow | undefined = await fed.db('statuses').where({ id }).first()
    const author = status && (await accountsById(fed.db, [status.account_id])).get(status.account_id)
    return status && author ? { status, author } : undefined
  }

  /**
   * A local post, created or edited, or its poll's new counts: its Note in a Create or Update to its audience
   * (docs/federation.md). A poll's Update (Mastodon's DistributePollUpdateWorker) is named after the vote or end
   * that made it (`key`), as the same edit's counts change many times; it and an edit also reach the poll's remote
   * voters.
   */
  const sendNote = async (
    reads: Reads,
    statusId: string,
    accountId: string,
    kind: 'create' | 'update' | 'poll',
    key: string,
    quotedAccountId?: string,
  ) => {
    if (!fed.enabled) return
    const author = await reads.account(accountId)
    if (!author || author.domain) return
    const status = await reads.status(statusId)
    if (!status || status.reblog_of_id) return
    const mentioned = [...(await reads.mentions(status.id))]
    // An edit also reaches those its earlier versions mentioned, as Mastodon keeps a removed mention (silent) in
    // the status's reach: their copy follows the edit.
    if (kind !== 'create') mentioned.push(...(await mentionedBefore(fed.db, status.id)))
    // The author of a post it quotes is addressed too, as Mastodon's silent mention of a quoted author (its
    // Quote#ensure_quoted_access): known from the activity for a new post, read for an edit.
    const quotedAuthor =
      kind === 'create'
        ? quotedAccountId
        : (await fed.db('quotes').where({ status_id: status.id }).first('quoted_account_id'))
            ?.quoted_account_id
    if (quotedAuthor && quotedAuthor !== author.id && status.visibility !== 'direct')
      mentioned.push(quotedAuthor)
    const voters: string[] =
      kind === 'create'
        ? []
        : await fed
            .db('poll_votes')
            .join('polls', 'polls.id', 'poll_votes.poll_id')
            .where('polls.status_id', status.id)
            .distinct()
            .pluck('poll_votes.account_id')
    const audience = await statusAudience(fed.db, {
      accountId: author.id,
      visibility: status.visibility,
      mentionedAccountIds: mentioned,
      inReplyToAccountId: status.in_reply_to_account_id,
      reachedAccountIds:
        kind === 'create' ? [] : [...(await interactedRemoteAccounts(fed.db, status)), ...voters],
    })
    // A public post also goes to the accepted relays (docs/federation.md, "Relays"), as Mastodon's StatusReachFinder;
    // they are inboxes, not accounts the Note names.
    const relays = status.visibility === 'public' ? await relayRecipients(fed.db) : []
    if (!audience.length && !relays.length) return
    // Built from the rows this activity's consumers have read (the status with its author, mentions and hashtags)
    // and the audience's accounts: what the Note needs beyond those is its media, poll and self-replies.
    const note = (await renderNotes(fed.db, urls, [status], { reads, accounts: audience })).get(status.id)!
    const actor = actorUriOf(urls, author)
    const activity =
      kind === 'create'
        ? renderCreate(note, actor)
        : renderUpdate(note, actor, kind === 'poll' ? { at: new Date().toISOString(), name: key } : undefined)
    const signed =
      fed.signsLinkedData && (status.visibility === 'public' || status.visibility === 'unlisted')
        ? await ldSigned(fed, activity, author.id, actor)
        : activity
    await deliver(signed, author.id, [...audience, ...relays], key)
  }

  /**
   * Mastodon's AddSerializer / RemoveSerializer for a pin: the post's URI added to or removed from the author's
   * `featured` collection, sent to the author's followers' servers.
   */
  const sendFeatured = async (type: 'Add' | 'Remove', statusId: string, accountId: string) => {
    const author = await localAccount(accountId)
    if (!author) return
    const followers = await remoteFollowers(fed.db, author.id)
    if (!followers.length) return
    const actor = actorUriOf(urls, author)
    const object = statusUri(urls, author.username, statusId)
    await deliver(
      {
        '@context': AS,
        id: `${actor}#${type.toLowerCase()}s/featured/${statusId}/${Date.now()}`,
        type,
        actor,
        object,
        target: `${actor}/collections/featured`,
      },
      author.id,
      followers,
      `${type.toLowerCase()}-featured-${statusId}-${Date.now()}`,
    )
  }

  /**
   * A local poll whose new counts go out: its totals are shown, or it has ended (Mastodon's `distribute_poll!`).
   */
  const localPollShown = async (pollId: string, ended = false) => {
    const poll: PollRow | undefined = await fed.db('polls').where({ id: pollId }).first()
    return poll && (ended || !poll.hide_totals) && (await localAccount(poll.account_id)) ? poll : undefined
  }

  return {
    // Quotes and moves (activities/quotes.ts).
    ...quoteFederation(fed, deliver, sendNote),
    /**
     * A local poll's counts as they are now, to its audience and voters (Mastodon's DistributePollUpdateWorker),
     * named `key` (one per distribution).
     */
    async distributePoll(pollId, key) {
      const shown = await localPollShown(pollId)
      if (shown) await sendNote(createReads(fed.db), shown.status_id, shown.account_id, 'poll', key)
    },
    // Posts across servers (docs/federation.md), as Mastodon's ActivityPub::DistributionWorker and its siblings.
    'status.created': (a, reads) =>
      sendNote(reads, a.statusId, a.accountId, 'create', `create-${a.statusId}`, a.quotedAccountId),
    'status.updated': (a, reads) =>
      sendNote(reads, a.statusId, a.accountId, 'update', `update-${a.statusId}-${a.editId}`),
    'status.deleted': async (a) => {
      const author = await localAccount(a.accountId)
      if (!author) return
      const audience = await statusAudience(fed.db, { ...a, accountId: author.id })
      if (a.visibility === 'public') audience.push(...(await relayRecipients(fed.db)))
      if (!audience.length) return
      const actor = actorUriOf(urls, author)
      const activity = renderDelete(statusUri(urls, author.username, a.statusId), actor)
      // Signed like its Create, so that the servers it was forwarded to can be told too.
      const signed =
        fed.signsLinkedData && (a.visibility === 'public' || a.visibility === 'unlisted')
          ? await ldSigned(fed, activity, author.id, actor)
          : activity
      await deliver(signed, author.id, audience, `delete-${a.statusId}`)
    },
    // A boost: the Announce to the booster's remote followers and to the boosted post's author if remote.
    'reblog.created': async (a) => {
      const booster = await localAccount(a.accountId)
      const original = booster && (await statusWithAuthor(a.reblogOfId))
      const reblog: StatusRow | undefined =
        original && (await fed.db('statuses').where({ id: a.statusId }).first())
      if (!booster || !original || !reblog) return
      const audience = [
        ...(await remoteFollowers(fed.db, booster.id)),
        ...(await remoteAccounts(fed.db, [original.author.id])),
      ]
      await deliver(
        renderAnnounce(
          urls,
          booster,
          reblog,
          objectUriOf(urls, original.status, original.author),
          original.author,
        ),
        booster.id,
        audience,
        `announce-${a.statusId}`,
      )
    },
    'reblog.removed': async (a) => {
      const booster = await localAccount(a.accountId)
      const original = booster && (await statusWithAuthor(a.reblogOfId))
      if (!booster || !original) return // the boosted post is gone: its Delete says enough
      const audience = [
        ...(await remoteFollowers(fed.db, booster.id)),
        ...(await remoteAccounts(fed.db, [original.author.id])),
      ]
      await deliver(
        renderUndoAnnounce(urls, booster, a.statusId, objectUriOf(urls, original.status, original.author)),
        booster.id,
        audience,
        `undo-announce-${a.statusId}`,
      )
    },
    // A favourite of a remote post: the Like goes to its author only (Mastodon's FavouriteService).
    'favourite.created': async (a) => {
      const account = await localAccount(a.accountId)
      const target = account && (await statusWithAuthor(a.statusId))
      if (!account || !target?.author.domain) return
      await deliver(
        renderLike(urls, account, a.favouriteId, objectUriOf(urls, target.status, target.author)),
        account.id,
        [target.author],
        `like-${a.favouriteId}`,
      )
    },
    'favourite.removed': async (a) => {
      const account = await localAccount(a.accountId)
      const target = account && (await statusWithAuthor(a.statusId))
      if (!account || !target?.author.domain) return
      await deliver(
        renderUndoLike(urls, account, a.favouriteId, objectUriOf(urls, target.status, target.author)),
        account.id,
        [target.author],
        `undo-like-${a.favouriteId}`,
      )
    },
    /**
     * A vote in a local poll: its new counts go to the post's audience and voters a few minutes later, with those of
     * the votes cast meanwhile (`distributePoll`). A local account's vote in a remote poll: one Create per chosen
     * option to the poll's author (Mastodon's VoteService).
     */
    'poll.voted': async (a) => {
      if (await localPollShown(a.pollId)) return pollUpdateSoon(a.pollId)
      const account = await localAccount(a.accountId)
      const poll: PollRow | undefined = account && (await fed.db('polls').where({ id: a.pollId }).first())
      const target = poll && (await statusWithAuthor(poll.status_id))
      if (!account || !poll || !target?.author.domain || !target.status.uri) return
      const votes: { id: string; choice: number }[] = await fed
        .db('poll_votes')
        .whereIn('id', a.voteIds)
        .orderBy('id')
      for (const vote of votes)
        await deliver(
          renderVote(urls, account, vote.id, poll.options[vote.choice]!, {
            uri: target.status.uri,
            author: target.author.uri!,
          }),
          account.id,
          [target.author],
          `vote-${vote.id}`,
        )
    },
    // A local poll ended: its final counts, `closed`, go out as after a vote.
    'poll.ended': async (a, reads) => {
      const shown = await localPollShown(a.pollId, true)
      if (shown) await sendNote(reads, shown.status_id, shown.account_id, 'poll', `poll-ended-${a.pollId}`)
    },
    /**
     * A local profile changed (Mastodon's UpdateDistributionWorker): the actor, as served, in an Update to every
     * server with a follower of it, once per shared inbox.
     */
    'status.pinned': (a) => sendFeatured('Add', a.statusId, a.accountId),
    'status.unpinned': (a) => sendFeatured('Remove', a.statusId, a.accountId),
    'account.updated': async (a) => {
      if (!fed.enabled) return
      const account: AccountRow | undefined = await fed
        .db('accounts')
        .where({ id: a.accountId })
        .whereNull('domain')
        .first()
      if (!account) return
      const followers: AccountRow[] = await fed
        .db('accounts')
        .join('follows', 'follows.account_id', 'accounts.id')
        .where('follows.target_account_id', account.id)
        .whereNotNull('accounts.domain')
        .select('accounts.*')
      if (!followers.length) return
      const keys = await localKeyPair(fed.db, account.id)
      const actor = renderActor(account, keys.publicKey, urls, fed.localDomain)
      const version = new Date(account.updated_at ?? Date.now()).getTime()
      await deliver(
        renderActorUpdate(actor, version),
        account.id,
        followers,
        `update-${account.id}-${version}`,
      )
    },
    /**
     * A report forwarded (Mastodon's ReportService#forward_to_origin! and #forward_to_replied_to!): the Flag, from
     * the instance actor, to the target's server and to the accounts the reported posts replied to whose servers are
     * among `forwardToDomains`.
     */
    'report.created': async (a) => {
      if (!fed.enabled || !a.forwardToDomains) return
      const report: ReportRow | undefined = await fed.db('reports').where({ id: a.reportId }).first()
      const target: AccountRow | undefined =
        report?.forwarded && (await fed.db('accounts').where({ id: report.target_account_id }).first())
      if (!report || !target?.domain) return
      const statuses: StatusRow[] = report.status_ids.length
        ? await fed.db('statuses').whereIn('id', report.status_ids).orderBy('id')
        : []
      const repliedTo = await remoteAccounts(
        fed.db,
        statuses.map((s) => s.in_reply_to_account_id),
      )
      const alsoTold = repliedTo.filter((r) => a.forwardToDomains!.includes(r.domain!.toLowerCase()))
      await deliver(
        renderFlag(
          urls,
          report.id,
          report.comment,
          target,
          statuses.map((s) => objectUriOf(urls, s, target)),
        ),
        null,
        [target, ...alsoTold],
        `flag-${report.id}`,
      )
    },
    // A local account asks to follow a remote one: the Follow, named after the request.
    'follow_request.created': async (a) => {
      const p = await pair(fed.db, a.accountId, a.targetAccountId)
      if (!p) return
      const [local, remote] = p
      const uri = followUri(urls, local, a.followRequestId)
      const [request] = await fed
        .db('follow_requests')
        .where({ id: a.followRequestId })
        .update({ uri: fed.db.raw('coalesce(uri, ?)', [uri]) })
        .returning('uri')
      if (!request) return // withdrawn meanwhile
      await deliver(
        renderFollow(urls, local, remote, request.uri),
        local.id,
        [remote],
        `follow-${a.followRequestId}`,
      )
    },
    'follow_request.withdrawn': async (a) => {
      if (a.fromPeer) return
      const p = await pair(fed.db, a.accountId, a.targetAccountId)
      if (!p) return
      const [local, remote] = p
      await deliver(
        renderUndoFollow(
          urls,
          local,
          remote,
          a.uri ?? followUri(urls, local, a.followRequestId),
          a.followRequestId,
        ),
        local.id,
        [remote],
        `undo-follow-request-${a.followRequestId}`,
      )
    },
    // A local account turned down a remote one's request.
    'follow_request.rejected': async (a) => {
      if (a.fromPeer) return
      const p = await pair(fed.db, a.targetAccountId, a.accountId)
      if (!p) return
      const [local, remote] = p
      await deliver(
        renderFollowAnswer('Reject', urls, remote, local, a.uri, `request-${a.followRequestId}`),
        local.id,
        [remote],
        `reject-request-${a.followRequestId}`,
      )
    },
    // A remote account follows a local one (at once, or its request authorized): the Accept.
    'follow.created': async (a) => {
      const p = await pair(fed.db, a.targetAccountId, a.accountId)
      if (!p) return
      const [local, remote] = p
      await deliver(
        renderFollowAnswer('Accept', urls, remote, local, a.uri, a.followId),
        local.id,
        [remote],
        `accept-${a.followId}`,
      )
    },
    'follow.removed': async (a) => {
      if (a.fromPeer) return
      const out = await pair(fed.db, a.accountId, a.targetAccountId)
      if (out) {
        // A local account unfollows a remote one.
        const [local, remote] = out
        await deliver(
          renderUndoFollow(urls, local, remote, a.uri, a.followId),
          local.id,
          [remote],
          `undo-follow-${a.followId}`,
        )
        return
      }
      const incoming = await pair(fed.db, a.targetAccountId, a.accountId)
      if (!incoming) return
      // A local account removed a remote follower (or blocked it): Mastodon rejects the Follow.
      const [local, remote] = incoming
      await deliver(
        renderFollowAnswer('Reject', urls, remote, local, a.uri, a.followId),
        local.id,
        [remote],
        `reject-follow-${a.followId}`,
      )
    },
    'block.created': async (a) => {
      if (a.fromPeer) return
      const p = await pair(fed.db, a.accountId, a.targetAccountId)
      if (!p) return
      const [local, remote] = p
      await deliver(renderBlock(urls, local, remote, a.blockId), local.id, [remote], `block-${a.blockId}`)
    },
    'block.removed': async (a) => {
      if (a.fromPeer) return
      const p = await pair(fed.db, a.accountId, a.targetAccountId)
      if (!p) return
      const [local, remote] = p
      await deliver(
        renderUndoBlock(urls, local, remote, a.blockId),
        local.id,
        [remote],
        `undo-block-${a.blockId}`,
      )
    },
  }
}
