import type { Knex } from '@roost/db'
import type { Urls } from '../../entities/account'
import type { AccountRow, CustomEmojiRow, MediaAttachmentRow, PollRow, StatusRow } from '../../db/rows'
import { emojisOfMany } from '../../queries/custom_emojis'
import { emojiTag } from './emoji'
import { mediaUrl } from '../../entities/account'
import { focusOfMeta } from '../../media/focus'
import { attachmentsOf } from '../../entities/status'
import type { Reads } from '../../domain/reads'
import { accountsById } from '../../queries/accounts'
import { bigintArray } from '../../queries/sql'
import { statusHtml } from '../../text/status'
import { escapeHtml } from '../../text/html'
import { PUBLIC_COLLECTION } from './contexts'
import { QUOTE_FALLBACK, QUOTED_ACTOR, quoteFieldsOf } from './quote'
import { acctOf, actorUriOf, followersUriOf, objectUriOf, statusUri, statusUrl } from '../uris'

/**
 * Local statuses as ActivityPub objects, shaped as Mastodon's NoteSerializer (docs/federation.md, "Posts across
 * servers"), built from their rows, as GoToSocial's typeutils build them from its models: the status, its author,
 * the accounts it mentions, its hashtags, media, poll, parent and first self-replies. Its HTML is written by the
 * text module (text/status.ts), as the client API's Status entity writes it, so both show the same content.
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

/** A Note (a Question when the status has a poll), as `renderNote` makes it. */
export interface Note {
  id: string
  type: 'Note' | 'Question'
  published: string
  updated?: string
  to: string[]
  cc: string[]
  replies: ReturnType<typeof repliesCollection>
  [field: string]: unknown
}

/** The rows a status's Note is made of. */
export interface NoteRows {
  status: StatusRow
  author: AccountRow
  /** The accounts it mentions. */
  mentioned: AccountRow[]
  /** Its hashtags' (normalised) names. */
  tags: string[]
  /** The media rows attached to it (those an edit removed included: `attachmentsOf` picks the current ones). */
  media: MediaAttachmentRow[]
  poll: PollRow | undefined
  /** The status it answers and that status's author, when it answers one that still exists. */
  parent: { status: Pick<StatusRow, 'id' | 'uri'>; author: AccountRow } | undefined
  /** Its author's first own public or unlisted replies to it, oldest first (ids and ActivityPub ids). */
  selfReplies: { id: string; uri: string }[]
  /** The custom emojis its text, warning and poll options use (docs/emoji.md). */
  emojis?: CustomEmojiRow[]
}

/** A local status's Note, from its rows alone. `now` decides whether its poll has ended. */
export function renderNote(urls: Urls, rows: NoteRows, now = new Date()): Note {
  const { status: s, author, poll } = rows
  const mentioned = [...rows.mentioned].sort((a, b) => byId(a.id, b.id))
  const id = statusUri(urls, author.username, s.id)
  const { to, cc } = addressing(
    s.visibility,
    mentioned.map((a) => actorUriOf(urls, a)),
    followersUriOf(urls, author),
  )
  // A remote status's text is its HTML, sanitised when it arrived (as the Status entity shows it).
  const content = s.uri
    ? s.text
    : statusHtml(s.text, new Map(mentioned.map((a) => [a.username.toLowerCase(), a])), urls)
  return {
    id,
    type: poll ? 'Question' : 'Note',
    summary: s.spoiler_text || null,
    inReplyTo: rows.parent ? objectUriOf(urls, rows.parent.status, rows.parent.author) : null,
    published: new Date(s.created_at).toISOString(),
    ...(s.edited_at ? { updated: new Date(s.edited_at).toISOString() } : {}),
    url: statusUrl(urls, author.username, s.id),
    attributedTo: actorUriOf(urls, author),
    to,
    cc,
    sensitive: s.sensitive,
    content,
    ...(s.language ? { contentMap: { [s.language]: content } } : {}),
    attachment: attachmentsOf(s, rows.media).map((m) => documentOf(urls, m)),
    tag: [
      ...mentioned.map((a) => ({ type: 'Mention', href: actorUriOf(urls, a), name: `@${acctOf(a)}` })),
      ...[...rows.tags].sort().map((name) => ({
        type: 'Hashtag',
        href: `${urls.base}/tags/${encodeURIComponent(name)}`,
        name: `#${name}`,
      })),
      ...(rows.emojis ?? []).map((e) => emojiTag(urls, e)),
    ],
    replies: repliesCollection(id, rows.selfReplies),
    ...(poll ? question(poll, now) : {}),
  }
}

/** Ids (bigints as text) in numeric order. */
const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)

/**
 * The Notes of local statuses (reblogs are left out: a boost is an Announce), by status id. Their rows are read
 * for the whole batch at once: mentions and hashtags, parents, accounts, media, polls and self-replies, a statement
 * each. `reads`: the accounts worker's rows of the activity, which hold the status's author, mentions and hashtags
 * already; `accounts`: accounts the caller holds (a post's audience), not read again.
 */
export async function renderNotes(
  db: Knex,
  urls: Urls,
  rows: StatusRow[],
  known: { reads?: Reads; accounts?: AccountRow[] } = {},
): Promise<Map<string, Note>> {
  const statuses = rows.filter((r) => !r.reblog_of_id)
  const ids = statuses.map((s) => s.id)
  if (!ids.length) return new Map()
  const parentIds = statuses.flatMap((s) => (s.in_reply_to_id ? [s.in_reply_to_id] : []))
  const [{ mentions, tags }, parents, media, polls, selfReplies]: [
    MentionsAndTags,
    Pick<StatusRow, 'id' | 'account_id' | 'uri'>[],
    MediaAttachmentRow[],
    PollRow[],
    { id: string; in_reply_to_id: string; uri: string | null }[],
  ] = await Promise.all([
    mentionsAndTags(db, ids, known.reads),
    parentIds.length ? db('statuses').whereIn('id', parentIds).select('id', 'account_id', 'uri') : [],
    db('media_attachments').whereIn('status_id', ids).orderBy('id'),
    db('polls').whereIn('status_id', ids),
    firstSelfReplies(db, ids),
  ])
  const accounts = new Map((known.accounts ?? []).map((a) => [a.id, a]))
  if (known.reads)
    for (const s of statuses) {
      const author = await known.reads.account(s.account_id)
      if (author) accounts.set(author.id, author)
    }
  const wanted = [
    ...statuses.map((s) => s.account_id),
    ...parents.map((p) => p.account_id),
    ...[...mentions.values()].flat(),
  ].filter((id) => !accounts.has(id))
  if (wanted.length) for (const [id, a] of await accountsById(db, wanted)) accounts.set(id, a)

  const notes = new Map<string, Note>()
  const now = new Date()
  const emojis = await emojisOfMany(
    db,
    statuses.map((s) => ({
      key: s.id,
      domain: accounts.get(s.account_id)?.domain ?? null,
      texts: [s.spoiler_text, s.text, ...(polls.find((p) => p.status_id === s.id)?.options ?? [])],
    })),
  )
  for (const s of statuses) {
    const author = accounts.get(s.account_id)!
    const parent = parents.find((p) => p.id === s.in_reply_to_id)
    const parentAuthor = parent && accounts.get(parent.account_id)
    const note = renderNote(
      urls,
      {
        status: s,
        author,
        mentioned: (mentions.get(s.id) ?? []).flatMap((id) => accounts.get(id) ?? []),
        tags: tags.get(s.id) ?? [],
        media: media.filter((m) => m.status_id === s.id),
        poll: polls.find((p) => p.status_id === s.id),
        parent: parent && parentAuthor ? { status: parent, author: parentAuthor } : undefined,
        selfReplies: selfReplies
          .filter((r) => r.in_reply_to_id === s.id)
          .map((r) => ({ id: r.id, uri: r.uri ?? statusUri(urls, author.username, r.id) })),
        emojis: emojis.get(s.id) ?? [],
      },
      now,
    )
    notes.set(s.id, note)
  }
  // Quotes and quote policy (docs/federation.md, "Quotes").
  for (const [id, fields] of await quoteFieldsOf(db, urls, statuses, accounts)) {
    const note = notes.get(id)!
    const {
      [QUOTE_FALLBACK]: fallback,
      [QUOTED_ACTOR]: quoted,
      ...noteFields
    } = fields as Record<string | symbol, unknown> & {
      [QUOTE_FALLBACK]?: { url: string; html: string }
      [QUOTED_ACTOR]?: string
    }
    Object.assign(note, noteFields)
    // The RE: paragraph, unless the text links to the quoted post already.
    const content = String(note.content ?? '')
    if (fallback && !content.includes(`href="${escapeHtml(fallback.url)}"`)) {
      note.content = `${fallback.html}${content}`
      const map = note.contentMap as Record<string, string> | undefined
      if (map) for (const k of Object.keys(map)) map[k] = note.content as string
    }
    if (quoted && !note.to.includes(quoted) && !note.cc.includes(quoted)) note.cc.push(quoted)
  }
  return notes
}

interface MentionsAndTags {
  /** The mentioned accounts' ids, by status id. */
  mentions: Map<string, readonly string[]>
  /** The hashtags' names, by status id. */
  tags: Map<string, string[]>
}

/** The mentions and hashtags of statuses: from `reads` (the worker's, which has them), else in one statement. */
async function mentionsAndTags(db: Knex, ids: string[], reads?: Reads): Promise<MentionsAndTags> {
  if (reads) {
    const [mentions, tags] = await Promise.all([
      Promise.all(ids.map((id) => reads.mentions(id))),
      Promise.all(ids.map((id) => reads.tags(id))),
    ])
    return {
      mentions: new Map(ids.map((id, i) => [id, mentions[i]!])),
      tags: new Map(ids.map((id, i) => [id, tags[i]!.map((t) => t.name)])),
    }
  }
  const { rows } = await db.raw<{ rows: { id: string; mentioned: string[]; tags: string[] }[] }>(
    `SELECT s.id::text AS id,
            ARRAY(SELECT account_id::text FROM mentions WHERE status_id = s.id) AS mentioned,
            ARRAY(SELECT tags.name FROM status_tags JOIN tags ON tags.id = status_tags.tag_id
                   WHERE status_tags.status_id = s.id) AS tags
       FROM unnest(?::bigint[]) AS s(id)`,
    [bigintArray(ids)],
  )
  return {
    mentions: new Map(rows.map((r) => [r.id, r.mentioned])),
    tags: new Map(rows.map((r) => [r.id, r.tags])),
  }
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
 * (`only_other_accounts`); the pages are served by GET /users/:username/statuses/:id/replies (api/federation/actors.ts).
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

/**
 * Mastodon's Question fields for a poll: its options (`oneOf`, or `anyOf` when several may be chosen) with their
 * votes (none shown while a `hide_totals` poll runs), its end, and `closed` once it has ended.
 */
function question(poll: PollRow, now: Date) {
  const endTime = poll.expires_at ? new Date(poll.expires_at).toISOString() : undefined
  const ended = !!poll.expires_at && new Date(poll.expires_at) <= now
  const shown = ended || !poll.hide_totals
  return {
    [poll.multiple ? 'anyOf' : 'oneOf']: poll.options.map((title, i) => ({
      type: 'Note',
      name: title,
      replies: { type: 'Collection', totalItems: shown ? Number(poll.cached_tallies[i] ?? 0) : 0 },
    })),
    ...(endTime ? { endTime } : {}),
    ...(ended && endTime ? { closed: endTime } : {}),
    votersCount: Number(poll.voters_count),
  }
}

/**
 * An attachment as Mastodon's Document: type, URL, description (`name`), blurhash, focal point (`focalPoint`,
 * `[x, y]` as Mastodon sends it) and the original's size.
 */
function documentOf(urls: Urls, m: MediaAttachmentRow) {
  const original = (m.meta as { original?: { width?: number; height?: number } } | null)?.original
  const focus = focusOfMeta(m.meta)
  const preview = m.thumbnail_file ?? m.preview_file
  return {
    type: 'Document',
    mediaType: m.content_type,
    url: mediaUrl(urls, m.file),
    name: m.description,
    ...(m.blurhash ? { blurhash: m.blurhash } : {}),
    ...(focus ? { focalPoint: [focus.x, focus.y] } : {}),
    ...(original?.width && original.height ? { width: original.width, height: original.height } : {}),
    // A video's or sound's preview picture, as Mastodon's `icon` (docs/federation.md, "Remote media").
    ...(preview && !m.content_type.startsWith('image/')
      ? { icon: { type: 'Image', mediaType: 'image/jpeg', url: mediaUrl(urls, preview) } }
      : {}),
  }
}
