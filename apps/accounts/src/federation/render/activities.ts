import type { Urls } from '../../entities/account'
import type { AccountRow, StatusRow } from '../../db/rows'
import { AS, NOTE_CONTEXT, PUBLIC_COLLECTION } from './contexts'
import type { Note } from './note'
import { addressing } from './note'
import { actorUriOf, followersUriOf, instanceActorUri, statusUri } from '../uris'

/**
 * The activities Roost sends, shaped as Mastodon's ActivityPub serializers shape them: about statuses
 * (docs/federation.md, "Posts across servers": ActivitySerializer, UpdateSerializer, DeleteSerializer,
 * UndoAnnounceSerializer, LikeSerializer, UndoLikeSerializer, VoteService's Create) and about relationships and
 * reports ("Follows across servers": FollowSerializer, AcceptFollowSerializer, RejectFollowSerializer,
 * UndoFollowSerializer, BlockSerializer, UndoBlockSerializer, FlagSerializer). Who receives them is audience.ts.
 */

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

/**
 * A post as an item of its author's outbox (Mastodon's OutboxSerializer): the Create of its Note, or, for a boost,
 * the Announce of the boosted post (`object`, its ActivityPub id); no context of its own (the page has it).
 */
export function renderOutboxItem(urls: Urls, author: AccountRow, status: StatusRow, object: Note | string) {
  const id = `${statusUri(urls, author.username, status.id)}/activity`
  const actor = actorUriOf(urls, author)
  const published = new Date(status.created_at).toISOString()
  if (typeof object === 'string') {
    const { to, cc } = addressing(status.visibility, [], followersUriOf(urls, author))
    return { id, type: 'Announce', actor, published, to, cc, object }
  }
  return { id, type: 'Create', actor, published, to: object.to, cc: object.cc, object }
}

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

/** The Undo of a Like or a Block of ours: the activity's own id with `/undo`, the activity as its object. */
const undoOf = (activity: { id: string; actor: string }) => ({
  '@context': AS,
  id: `${activity.id}/undo`,
  type: 'Undo',
  actor: activity.actor,
  object: activity,
})

export const renderUndoLike = (urls: Urls, account: AccountRow, favouriteId: string, objectUri: string) =>
  undoOf(likeObject(urls, account, favouriteId, objectUri))

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

export const renderUndoBlock = (urls: Urls, blocker: Actor, blocked: Actor, blockId: string) =>
  undoOf(blockObject(urls, blocker, blocked, blockId))

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
