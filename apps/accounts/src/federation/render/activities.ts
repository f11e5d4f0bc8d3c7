import type { Knex } from '@roost/db'
import type { AccountRow, Urls } from '../../entities/account'
import type { StatusRow } from '../../entities/status'
import { bigintArray } from '../../domain/relationships'
import { AS, NOTE_CONTEXT, PUBLIC_COLLECTION } from '../../api/federation/activity-json'
import { addressing } from './note'
import { actorUriOf, followersUriOf, statusUri } from '../uris'

/**
 * The activities Roost sends about statuses (docs/federation.md, "Posts across servers"), shaped as Mastodon's
 * ActivityPub serializers shape them (ActivitySerializer, UpdateSerializer, DeleteSerializer, UndoAnnounceSerializer,
 * LikeSerializer, UndoLikeSerializer), and who receives them (Mastodon's StatusReachFinder).
 */

interface Note {
  id: string
  published: string
  updated?: string
  to: string[]
  cc: string[]
}

/** A status's ActivityPub id: a remote one's own, else ours. */
export const objectUriOf = (urls: Urls, status: Pick<StatusRow, 'id' | 'uri'>, author: AccountRow) =>
  status.uri ?? statusUri(urls, author.username, status.id)

/** Create of a local post: its id is the Note's `/activity`, as Mastodon's. */
export const renderCreate = (note: Note, actor: string) => ({
  '@context': NOTE_CONTEXT,
  id: `${note.id}/activity`,
  type: 'Create',
  actor,
  published: note.published,
  to: note.to,
  cc: note.cc,
  object: note,
})

/**
 * Update of an edited post, named after the edit's moment. A poll's new counts, sent at `pollUpdate.at`, are named
 * after what made them (`pollUpdate.name`), as two votes a second apart would otherwise make one id.
 */
export const renderUpdate = (note: Note, actor: string, pollUpdate?: { at: string; name: string }) => ({
  '@context': NOTE_CONTEXT,
  id: pollUpdate
    ? `${note.id}#updates/${pollUpdate.name}`
    : `${note.id}#updates/${Math.floor(new Date(note.updated ?? note.published).getTime() / 1000)}`,
  type: 'Update',
  actor,
  published: pollUpdate?.at ?? note.updated ?? note.published,
  to: note.to,
  cc: note.cc,
  object: note,
})

/** Delete of a post: a Tombstone of its id, to Public whatever it was (Mastodon's DeleteSerializer). */
export const renderDelete = (noteId: string, actor: string) => ({
  '@context': AS,
  id: `${noteId}#delete`,
  type: 'Delete',
  actor,
  to: [PUBLIC_COLLECTION],
  object: { id: noteId, type: 'Tombstone', atomUri: noteId },
})

/** Announce (a boost): addressed as the boost's visibility, with the boosted post's author in `cc`. */
export function renderAnnounce(
  urls: Urls,
  booster: AccountRow,
  reblog: Pick<StatusRow, 'id' | 'visibility' | 'created_at'>,
  objectUri: string,
  originalAuthor: AccountRow,
) {
  const { to, cc } = addressing(reblog.visibility, [], followersUriOf(urls, booster))
  return {
    '@context': AS,
    id: `${statusUri(urls, booster.username, reblog.id)}/activity`,
    type: 'Announce',
    actor: actorUriOf(urls, booster),
    published: new Date(reblog.created_at).toISOString(),
    to,
    cc: [actorUriOf(urls, originalAuthor), ...cc],
    object: objectUri,
  }
}

/** Undo of a boost (the reblog row is gone: the Announce is named by its id). */
export const renderUndoAnnounce = (urls: Urls, booster: AccountRow, reblogId: string, objectUri: string) => {
  const actor = actorUriOf(urls, booster)
  return {
    '@context': AS,
    id: `${actor}#announces/${reblogId}/undo`,
    type: 'Undo',
    actor,
    to: [PUBLIC_COLLECTION],
    object: {
      id: `${statusUri(urls, booster.username, reblogId)}/activity`,
      type: 'Announce',
      actor,
      object: objectUri,
    },
  }
}

const likeObject = (urls: Urls, account: AccountRow, favouriteId: string, objectUri: string) => ({
  id: `${actorUriOf(urls, account)}#likes/${favouriteId}`,
  type: 'Like',
  actor: actorUriOf(urls, account),
  object: objectUri,
})

export const renderLike = (urls: Urls, account: AccountRow, favouriteId: string, objectUri: string) => ({
  '@context': AS,
  ...likeObject(urls, account, favouriteId, objectUri),
})

export const renderUndoLike = (urls: Urls, account: AccountRow, favouriteId: string, objectUri: string) => ({
  '@context': AS,
  id: `${actorUriOf(urls, account)}#likes/${favouriteId}/undo`,
  type: 'Undo',
  actor: actorUriOf(urls, account),
  object: likeObject(urls, account, favouriteId, objectUri),
})

/**
 * A vote in a remote poll, as Mastodon's VoteService sends it: a Create of a Note whose `name` is the option's
 * title, answering the poll, addressed to its author only.
 */
export const renderVote = (
  urls: Urls,
  account: AccountRow,
  voteId: string,
  option: string,
  poll: { uri: string; author: string },
) => {
  const actor = actorUriOf(urls, account)
  const id = `${actor}#votes/${voteId}`
  return {
    '@context': AS,
    id: `${id}/activity`,
    type: 'Create',
    actor,
    to: [poll.author],
    object: { id, type: 'Note', name: option, attributedTo: actor, to: [poll.author], inReplyTo: poll.uri },
  }
}

/** Remote accounts by id (local ones and unknown ids left out). */
export const remoteAccounts = async (db: Knex, ids: (string | null | undefined)[]): Promise<AccountRow[]> => {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))]
  return wanted.length ? db('accounts').whereIn('id', wanted).whereNotNull('domain') : []
}

/** The remote followers of a local account. */
export const remoteFollowers = (db: Knex, accountId: string): Promise<AccountRow[]> =>
  db('accounts')
    .join('follows', 'follows.account_id', 'accounts.id')
    .where('follows.target_account_id', accountId)
    .whereNotNull('accounts.domain')
    .select('accounts.*')

/**
 * Who receives a post's Create, Update or Delete (Mastodon's StatusReachFinder): the author's remote followers
 * unless it is direct, the mentioned remote accounts, and for a public or unlisted post the parent's remote author
 * and the remote accounts that boosted, favourited or answered it.
 */
export async function statusAudience(
  db: Knex,
  s: {
    accountId: string
    visibility: StatusRow['visibility']
    mentionedAccountIds: string[]
    inReplyToAccountId: string | null
    /** Remote accounts that boosted, favourited or answered it (public and unlisted posts). */
    reachedAccountIds?: string[]
  },
): Promise<AccountRow[]> {
  const distributable = s.visibility === 'public' || s.visibility === 'unlisted'
  const named = [
    ...new Set(
      [
        ...s.mentionedAccountIds,
        ...(distributable ? [s.inReplyToAccountId, ...(s.reachedAccountIds ?? [])] : []),
      ].filter((id): id is string => !!id),
    ),
  ]
  // The followers and the accounts named, in one statement. One set of ids, not `id IN (…) OR id IN (followers)`:
  // with the OR, Postgres walked every known account to test each against both (docs/performance.md, "Queries").
  const ids =
    s.visibility === 'direct'
      ? db.raw('SELECT unnest(?::bigint[])', [bigintArray(named)])
      : db.raw(
          'SELECT unnest(?::bigint[]) UNION SELECT account_id FROM follows WHERE target_account_id = ?',
          [bigintArray(named), s.accountId],
        )
  return db('accounts').whereNotNull('domain').whereRaw('id IN (?)', [ids]).orderBy('id')
}
