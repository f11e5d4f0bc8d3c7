import type { Knex } from '@roost/db'
import type { AccountRow, Urls } from '../../entities/account'
import { mediaUrl } from '../../entities/account'
import type { MediaAttachmentRow } from '../../entities/media_attachment'
import type { StatusRow } from '../../entities/status'
import { attachmentsOf, renderStatuses } from '../../entities/status'
import { accountsById } from '../../domain/records'
import { PUBLIC_COLLECTION } from './contexts'
import { acctOf, actorUriOf, followersUriOf, statusUri, statusUrl } from '../uris'

/**
 * Local statuses as ActivityPub objects, shaped as Mastodon's NoteSerializer (docs/federation.md, "Objects"):
 * the HTML content of the client API, addressing from the visibility, attachments as Documents and mentions and
 * hashtags as tags.
 */
export interface Addressing {
  to: string[]
  cc: string[]
}

/** Mastodon's TagManager#to and #cc for a status mentioning `mentioned` (actor URIs). */
export function addressing(
  visibility: StatusRow['visibility'],
  mentioned: string[],
  followers: string,
): Addressing {
  switch (visibility) {
    case 'public':
      return { to: [PUBLIC_COLLECTION], cc: [followers, ...mentioned] }
    case 'unlisted':
      return { to: [followers], cc: [PUBLIC_COLLECTION, ...mentioned] }
    case 'private':
      return { to: [followers], cc: mentioned }
    case 'direct':
      return { to: mentioned, cc: [] }
  }
}

export async function renderNotes(db: Knex, urls: Urls, rows: StatusRow[]): Promise<Map<string, object>> {
  const originals = rows.filter((r) => !r.reblog_of_id)
  const entities = await renderStatuses(db, urls, originals)
  const parentIds = originals.flatMap((s) => (s.in_reply_to_id ? [s.in_reply_to_id] : []))
  const parents: { id: string; account_id: string; uri: string | null }[] = parentIds.length
    ? await db('statuses').whereIn('id', parentIds).select('id', 'account_id', 'uri')
    : []
  const ids = originals.map((s) => s.id)
  const [mentions, media, selfReplies]: [
    { status_id: string; account_id: string }[],
    MediaAttachmentRow[],
    { id: string; in_reply_to_id: string; uri: string | null }[],
  ] = ids.length
    ? await Promise.all([
        db('mentions').whereIn('status_id', ids),
        db('media_attachments').whereIn('status_id', ids).orderBy('id'),
        firstSelfReplies(db, ids),
      ])
    : [[], [], []]
  const accounts = await accountsById(db, [
    ...originals.map((s) => s.account_id),
    ...parents.map((p) => p.account_id),
    ...mentions.map((m) => m.account_id),
  ])
  const notes = new Map<string, object>()
  originals.forEach((s, i) => {
    const entity = entities[i] as {
      content: string
      tags: { name: string; url: string }[]
      poll: PollEntity | null
    }
    const author = accounts.get(s.account_id)!
    const mentioned = mentions
      .filter((m) => m.status_id === s.id)
      .map((m) => accounts.get(m.account_id))
      .filter((a): a is AccountRow => !!a)
    const parent = s.in_reply_to_id ? parents.find((p) => p.id === s.in_reply_to_id) : undefined
    const parentAuthor = parent ? accounts.get(parent.account_id) : undefined
    const id = statusUri(urls, author.username, s.id)
    const { to, cc } = addressing(
      s.visibility,
      mentioned.map((a) => actorUriOf(urls, a)),
      followersUriOf(urls, author),
    )
    notes.set(s.id, {
      id,
      type: entity.poll ? 'Question' : 'Note',
      summary: s.spoiler_text || null,
      inReplyTo:
        parent && parentAuthor ? (parent.uri ?? statusUri(urls, parentAuthor.username, parent.id)) : null,
      published: new Date(s.created_at).toISOString(),
      ...(s.edited_at ? { updated: new Date(s.edited_at).toISOString() } : {}),
      url: statusUrl(urls, author.username, s.id),
      attributedTo: actorUriOf(urls, author),
      to,
      cc,
      sensitive: s.sensitive,
      content: entity.content,
      ...(s.language ? { contentMap: { [s.language]: entity.content } } : {}),
      attachment: attachmentsOf(s, media).map((m) => documentOf(urls, m)),
      tag: [
        ...mentioned.map((a) => ({ type: 'Mention', href: actorUriOf(urls, a), name: `@${acctOf(a)}` })),
        ...entity.tags.map((t) => ({ type: 'Hashtag', href: t.url, name: `#${t.name}` })),
      ],
      replies: repliesCollection(
        id,
        selfReplies
          .filter((r) => r.in_reply_to_id === s.id)
          .map((r) => ({ id: r.id, uri: r.uri ?? statusUri(urls, author.username, r.id) })),
      ),
      ...(entity.poll ? question(entity.poll) : {}),
    })
  })
  return notes
}

/** How many of its author's own replies a Note lists in its `replies` (Mastodon's `self_replies(5)`). */
const SELF_REPLIES_IN_NOTE = 5

/** The first public or unlisted replies of each status by its own author, oldest first, at most five each. */
const firstSelfReplies = (db: Knex, ids: string[]) =>
  db
    .select('id', 'in_reply_to_id', 'uri')
    .from(
      db('statuses as r')
        .join('statuses as p', function () {
          this.on('p.id', 'r.in_reply_to_id').andOn('p.account_id', 'r.account_id')
        })
        .whereIn('r.in_reply_to_id', ids)
        .whereIn('r.visibility', ['public', 'unlisted'])
        .select(
          'r.id',
          'r.in_reply_to_id',
          'r.uri',
          db.raw('row_number() OVER (PARTITION BY r.in_reply_to_id ORDER BY r.id) AS n'),
        )
        .as('numbered'),
    )
    .where('n', '<=', SELF_REPLIES_IN_NOTE)
    .orderBy('id')

/**
 * A Note's `replies`, as Mastodon's NoteSerializer: a Collection whose first page lists the author's own first
 * replies (URIs) and links on to the rest of them (`min_id`), or, when there are none, to the others' replies
 * (`only_other_accounts`); the pages are served by GET /users/:username/statuses/:id/replies (actors.ts).
 */
export const repliesCollection = (noteId: string, selfReplies: { id: string; uri: string }[]) => ({
  id: `${noteId}/replies`,
  type: 'Collection',
  first: {
    type: 'CollectionPage',
    next: selfReplies.length
      ? `${noteId}/replies?min_id=${selfReplies.at(-1)!.id}&page=true`
      : `${noteId}/replies?only_other_accounts=true&page=true`,
    partOf: `${noteId}/replies`,
    items: selfReplies.map((r) => r.uri),
  },
})

interface PollEntity {
  expires_at: string | null
  expired: boolean
  multiple: boolean
  voters_count: number | null
  options: { title: string; votes_count: number | null }[]
}

/** Mastodon's Question fields for a poll: its options (`oneOf`, or `anyOf` when several may be chosen). */
const question = (poll: PollEntity) => ({
  [poll.multiple ? 'anyOf' : 'oneOf']: poll.options.map((o) => ({
    type: 'Note',
    name: o.title,
    replies: { type: 'Collection', totalItems: o.votes_count ?? 0 },
  })),
  ...(poll.expires_at ? { endTime: poll.expires_at } : {}),
  ...(poll.expired && poll.expires_at ? { closed: poll.expires_at } : {}),
  votersCount: poll.voters_count ?? 0,
})

/** An attachment as Mastodon's Document: type, URL, description, blurhash and the original's size. */
function documentOf(urls: Urls, m: MediaAttachmentRow) {
  const original = (m.meta as { original?: { width?: number; height?: number } } | null)?.original
  return {
    type: 'Document',
    mediaType: m.content_type,
    url: mediaUrl(urls, m.file),
    name: m.description,
    ...(m.blurhash ? { blurhash: m.blurhash } : {}),
    ...(original?.width && original.height ? { width: original.width, height: original.height } : {}),
  }
}
