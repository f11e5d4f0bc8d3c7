import type { Knex } from '@roost/db'
import { Invalid } from '@roost/errors'
import type { AccountRow, MediaAttachmentRow, PollRow, StatusRow } from '../../db/rows'
import { focalPointOf, focusOfMeta, remoteDescription } from '../../media/focus'
import { attachmentsOf as currentAttachments } from '../../entities/status'
import { pollOptionsOf, snapshot } from '../../domain/edits'
import { emojiTagsOf, storeRemoteEmojis } from '../../domain/custom_emojis'
import { favourite, unfavourite } from '../../domain/favourites'
import type { RemotePoll } from '../../domain/polls'
import { storeRemotePoll, vote } from '../../domain/polls'
import { createReport } from '../../domain/reports'
import type { Visibility } from '../../domain/statuses'
import { countStatus, deleteStatus, reblog } from '../../domain/statuses'
import { storeTags } from '../../domain/tags'
import * as outbox from '../../outbox/outbox'
import { PUBLIC_COLLECTION } from '../render/contexts'
import type { Federation } from '../transport/client'
import { domainPolicy, isUrlBlocked } from '../domain-blocks'
import { findByUri, resolveActor } from '../remote-accounts'
import { lockActor, markUndone, undone } from './tombstones'
import { htmlText, sanitizeHtml } from './sanitize'
import { CONVERTED_TYPES, convertedHtml, isConverted } from './objects'
import { storeRemoteQuote } from './quotes'

/**
 * Statuses and interactions from other servers (docs/federation.md, "Incoming statuses"), as Mastodon's
 * ActivityPub::Activity::Create, Update, Delete, Announce, Like, Undo and Flag: remote statuses are rows of the
 * same `statuses` table (with `uri` and `url`), and everything goes through the same domain functions and outbox
 * activities as local ones, so feeds, streams, notifications and Web Push follow unchanged.
 */

type Json = Record<string, unknown>

const NOTE_TYPES = new Set(['Note', 'Question', ...CONVERTED_TYPES])
const PUBLIC = new Set([PUBLIC_COLLECTION, 'as:Public', 'Public'])
const MAX_MEDIA = 4
/**
 * Unknown ancestors of an incoming reply fetched at most this deep (Mastodon's ThreadResolveWorker fetches the
 * parent of each status it stores, a chain that it bounds the same way).
 */
export const MAX_ANCESTORS_FETCHED = 5

export const idOf = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : v && typeof v === 'object' ? idOf((v as { id?: unknown }).id) : undefined
const list = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v])
const ids = (v: unknown) => list(v).flatMap((x) => idOf(x) ?? [])
const hostOf = (uri: string | undefined) => {
  try {
    return uri ? new URL(uri).host.toLowerCase() : undefined
  } catch {
    return undefined
  }
}
export const sameHost = (a: string | undefined, b: string | undefined) =>
  !!hostOf(a) && hostOf(a) === hostOf(b)

/** Whether an object is a status Roost takes: a Note or Question, or an object Mastodon converts (objects.ts). */
export const isNoteLike = (v: unknown): v is Json =>
  !!v &&
  typeof v === 'object' &&
  (Array.isArray((v as Json).type) ? ((v as Json).type as unknown[]) : [(v as Json).type]).some((t) =>
    NOTE_TYPES.has(String(t)),
  )

/** Mastodon's `visibility_from_audience`. */
function visibilityOf(object: Json, author: AccountRow): Visibility {
  const to = ids(object.to)
  const cc = ids(object.cc)
  if (to.some((x) => PUBLIC.has(x))) return 'public'
  if (cc.some((x) => PUBLIC.has(x))) return 'unlisted'
  const followers = author.followers_url ?? `${author.uri}/followers`
  if ([...to, ...cc].includes(followers)) return 'private'
  return 'direct'
}

/** The local status a URI names: ours (`/users/<u>/statuses/<id>`), or a remote one we have by its `uri`. */
export async function statusByUri(fed: Federation, db: Knex, uri: string | undefined) {
  if (!uri) return undefined
  const base = fed.urls.base
  const local = uri.startsWith(`${base}/`)
    ? /^\/(?:users\/[A-Za-z0-9_]+\/statuses\/|@[A-Za-z0-9_]+\/)(\d{1,19})$/.exec(uri.slice(base.length))
    : null
  const row: StatusRow | undefined = local
    ? await db('statuses').where({ id: local[1] }).whereNull('uri').first()
    : await db('statuses').where({ uri }).first()
  return row
}

/** The local accounts an object addresses or mentions (its `to`, `cc` and `Mention` tags). */
async function localAccountsNamed(fed: Federation, object: Json): Promise<AccountRow[]> {
  const base = fed.urls.base
  const uris = [
    ...ids(object.to),
    ...ids(object.cc),
    ...list(object.tag).flatMap((t) =>
      t && typeof t === 'object' && (t as Json).type === 'Mention' ? (idOf((t as Json).href) ?? []) : [],
    ),
  ]
  const names = [
    ...new Set(
      uris.flatMap((u) => {
        const m = u.startsWith(`${base}/`)
          ? /^\/(?:users\/|@)([A-Za-z0-9_]+)$/.exec(u.slice(base.length))
          : null
        return m ? [m[1]!.toLowerCase()] : []
      }),
    ),
  ]
  return names.length
    ? fed
        .db('accounts')
        .whereNull('domain')
        .whereRaw('lower(username) = any(?)', [names])
        .whereNull('suspended_at')
    : []
}

/** The remote accounts an object mentions that we know already (Mention tags by actor URI). */
async function remoteAccountsMentioned(fed: Federation, object: Json): Promise<AccountRow[]> {
  const hrefs = list(object.tag).flatMap((t) =>
    t && typeof t === 'object' && (t as Json).type === 'Mention' ? (idOf((t as Json).href) ?? []) : [],
  )
  return hrefs.length ? fed.db('accounts').whereIn('uri', hrefs).whereNotNull('domain') : []
}

function contentOf(object: Json): { html: string; language: string | null } {
  const map = object.contentMap && typeof object.contentMap === 'object' ? (object.contentMap as Json) : {}
  const [language, mapped] = Object.entries(map).find(([, v]) => typeof v === 'string') ?? []
  const content =
    typeof object.content === 'string' ? object.content : typeof mapped === 'string' ? mapped : ''
  // An Article, Page, Video… shows its title, summary and link, never its content (objects.ts).
  const html = isConverted(object) ? convertedHtml(object, urlOf(object) ?? idOf(object) ?? '') : content
  return {
    html: sanitizeHtml(html),
    language: language && /^[a-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/i.test(language) ? language.slice(0, 16) : null,
  }
}

/**
 * The content warning (`summary`) and sensitivity of an incoming object; a converted object's summary is part of
 * its text, never a warning (Mastodon's `processed_spoiler_text`).
 */
function warningOf(object: Json): { spoiler_text: string; sensitive: boolean } {
  const summary = !isConverted(object) && typeof object.summary === 'string' ? object.summary : ''
  return {
    spoiler_text: htmlText(summary).slice(0, 1000),
    sensitive: object.sensitive === true || !!summary,
  }
}

const hashtagsOf = (object: Json) =>
  list(object.tag).flatMap((t) => {
    const tag = t as Json
    return tag && typeof tag === 'object' && tag.type === 'Hashtag' && typeof tag.name === 'string'
      ? [tag.name.replace(/^#/, '')]
      : []
  })

/** The object's page: its `url`, the `text/html` link among several as Mastodon's `url_to_href` picks it. */
const urlOf = (object: Json): string | null => {
  const links = list(object.url)
  const u = links.find((l) => l && typeof l === 'object' && (l as Json).mediaType === 'text/html') ?? links[0]
  const href = typeof u === 'string' ? u : u && typeof u === 'object' ? (u as Json).href : undefined
  return typeof href === 'string' && /^https?:\/\//i.test(href) ? href : null
}

/** The URL of a Document's `icon` (an Image, a link or a bare URL), when it is http(s). */
function previewOf(icon: unknown): string | null {
  const first = list(icon)[0]
  const url =
    typeof first === 'string'
      ? first
      : first && typeof first === 'object'
        ? ((first as Json).url ?? (first as Json).href)
        : undefined
  const href =
    typeof url === 'string' ? url : (idOf(list(url)[0]) ?? (list(url)[0] as Json | undefined)?.href)
  return typeof href === 'string' && /^https?:\/\//i.test(href) ? href.slice(0, 2000) : null
}

/**
 * Remote attachments, linked by URL (Mastodon's Document, Image, Video, Audio), at most four, with their alt text
 * (`name`, or `summary` without one) and focal point (`focalPoint`) (docs/federation.md, "Remote media").
 */
function attachmentsOf(object: Json) {
  return list(object.attachment)
    .flatMap((a) => {
      if (!a || typeof a !== 'object') return []
      const doc = a as Json
      const href =
        typeof doc.url === 'string' ? doc.url : (idOf(list(doc.url)[0]) ?? (list(doc.url)[0] as Json)?.href)
      if (typeof href !== 'string' || !/^https?:\/\//i.test(href)) return []
      const focus = focalPointOf(doc.focalPoint)
      return [
        {
          remote_url: href,
          content_type:
            typeof doc.mediaType === 'string' ? doc.mediaType.slice(0, 100) : 'application/octet-stream',
          description: remoteDescription(doc),
          blurhash: typeof doc.blurhash === 'string' ? doc.blurhash.slice(0, 100) : null,
          // Mastodon's `icon`: a video's or sound's preview picture (docs/federation.md, "Remote media").
          preview_remote_url: previewOf(doc.icon),
          meta: {
            ...(typeof doc.width === 'number' && typeof doc.height === 'number'
              ? { original: { width: doc.width, height: doc.height } }
              : {}),
            ...(focus ? { focus } : {}),
          },
        },
      ]
    })
    .slice(0, MAX_MEDIA)
}

const publishedOf = (object: Json) => {
  const at = typeof object.published === 'string' ? new Date(object.published) : undefined
  return at && !Number.isNaN(at.getTime()) && at.getTime() <= Date.now() ? at : new Date()
}

const dateOf = (v: unknown) => {
  const at = typeof v === 'string' ? new Date(v) : undefined
  return at && !Number.isNaN(at.getTime()) ? at : undefined
}
const countOf = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0)

/**
 * The poll of a Question (Mastodon's `process_poll`): its options (`anyOf` when several may be chosen, else
 * `oneOf`), the votes its server counted for each, its voters, and its end (`endTime`, or `closed` once ended).
 */
function pollOf(object: Json): RemotePoll | undefined {
  if (object.type !== 'Question') return undefined
  const multiple = Array.isArray(object.anyOf) && object.anyOf.length > 0
  const items = list(multiple ? object.anyOf : object.oneOf).filter(
    (o): o is Json => !!o && typeof o === 'object' && typeof (o as Json).name === 'string',
  )
  if (!items.length) return undefined
  const tallies = items.map((o) => countOf((o.replies as Json | undefined)?.totalItems))
  return {
    options: items.map((o) => htmlText(o.name as string).slice(0, 1000)),
    multiple,
    tallies,
    // Mastodon counts the voters of a single-choice poll by its votes when the server does not say.
    votersCount:
      typeof object.votersCount === 'number'
        ? countOf(object.votersCount)
        : multiple
          ? 0
          : tallies.reduce((a, b) => a + b, 0),
    expiresAt: dateOf(object.endTime) ?? dateOf(object.closed) ?? null,
  }
}

/**
 * Mastodon's poll vote: a Note with a `name` (the option's title) and no content, answering a local poll, is a vote
 * of the signer, never a status. A vote that does not count (the poll ended, a second vote in a single-choice
 * poll) is dropped, as Mastodon's validation drops it. Returns whether the object was a vote.
 */
export async function pollVote(fed: Federation, voter: AccountRow, object: Json): Promise<boolean> {
  if (object.type !== 'Note' || typeof object.name !== 'string') return false
  if (typeof object.content === 'string' && htmlText(object.content).trim()) return false
  const status = await statusByUri(fed, fed.db, idOf(object.inReplyTo))
  if (!status || status.uri) return false
  const poll: PollRow | undefined = await fed.db('polls').where({ status_id: status.id }).first()
  const choice = poll ? poll.options.indexOf(object.name) : -1
  if (!poll || choice < 0) return false
  try {
    await fed.db.transaction((trx) => vote(trx, poll.id, voter.id, [choice]))
  } catch (err) {
    if (!(err instanceof Invalid)) throw err
    fed.logger.info({ voter: voter.uri, pollId: poll.id, reason: err.message }, 'poll vote refused')
  }
  return true
}

/**
 * Mastodon's ActivityPub::Activity::Create for a Note (or Question, Article, Page) of `author`: refused when its id
 * is on another host than its author, when nothing local relates to it (nobody here follows the author, it neither
 * addresses nor mentions a local account, nor replies to a local status) unless `fetched` (for a boost, a
 * search, or as the parent of a reply), and when it is there already. A reply to a status unknown here fetches
 * that parent first (and so on up, `depth` counting the steps), so that threads hold it; one that cannot be
 * fetched leaves the reply stored without it. Returns the status (new or known).
 */
export async function createRemoteStatus(
  fed: Federation,
  author: AccountRow,
  object: Json,
  fetched = false,
  depth = 0,
): Promise<StatusRow | undefined> {
  const uri = idOf(object)
  if (!uri || !sameHost(uri, author.uri!)) return undefined
  const known: StatusRow | undefined = await fed.db('statuses').where({ uri }).first()
  if (known) return known
  const parentUri = idOf(object.inReplyTo)
  let parent = await statusByUri(fed, fed.db, parentUri)
  const locals = await localAccountsNamed(fed, object)
  const followed = await fed
    .db('follows')
    .join('accounts', 'accounts.id', 'follows.account_id')
    .whereNull('accounts.domain')
    .where('follows.target_account_id', author.id)
    .first('follows.id')
  if (!fetched && !followed && !locals.length && !(parent && !parent.uri)) {
    fed.logger.debug({ uri }, 'status not related to local activity: ignored')
    return undefined
  }
  if (!parent && parentUri && parentUri !== uri && depth < MAX_ANCESTORS_FETCHED)
    parent = await fetchStatus(fed, parentUri, depth + 1)
  const mentioned = [
    ...locals.filter((a) => mentionsOf(object).has(a.username.toLowerCase())),
    ...(await remoteAccountsMentioned(fed, object)),
  ]
  const visibility = visibilityOf(object, author)
  // Direct messages mention their recipients: those addressed without a Mention tag count too (Mastodon's
  // `process_audience`).
  if (visibility === 'direct') for (const a of locals) if (!mentioned.includes(a)) mentioned.push(a)
  const { html, language } = contentOf(object)
  const media = attachmentsOf(object)
  const poll = pollOf(object)
  const stored: StatusRow | undefined = await fed.db.transaction(async (trx) => {
    // One Create of a URI at a time (a replay racing the original, or a boost's fetch): the second finds the first.
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [uri])
    const raced: StatusRow | undefined = await trx('statuses').where({ uri }).first()
    if (raced) return raced
    // Its Delete was handled first (the inbox queue runs an actor's activities concurrently): nothing to store.
    if (await trx('inbox_tombstones').where({ account_id: author.id, uri }).first('uri')) return undefined
    const insert = trx('statuses')
    if (!parent) insert.with('c', trx.raw('insert into conversations default values returning id'))
    const published = publishedOf(object)
    const [row]: StatusRow[] = await insert
      .insert({
        // A snowflake of its publication time, as Mastodon's `Snowflake.id_at`: listings order by id, so a post
        // that arrives late still takes its place by date.
        id: trx.raw(
          "(floor(extract(epoch FROM ?::timestamptz) * 1000)::bigint << 16) | (nextval('snowflake_seq') % 65536)",
          [published.toISOString()],
        ),
        account_id: author.id,
        uri,
        url: urlOf(object),
        conversation_id: parent ? parent.conversation_id : trx.raw('(select id from c)'),
        text: html,
        ...warningOf(object),
        visibility,
        language,
        in_reply_to_id: parent?.id ?? null,
        in_reply_to_account_id: parent?.account_id ?? null,
        created_at: published,
      })
      .returning('*')
    if (media.length) {
      const rows = await trx('media_attachments')
        .insert(media.map((m) => ({ ...m, account_id: author.id, status_id: row!.id, file: '' })))
        .returning('id')
      if (rows.length > 1)
        await trx('statuses')
          .where({ id: row!.id })
          .update({ ordered_media_attachment_ids: rows.map((r: { id: string }) => r.id) })
    }
    if (poll) await storeRemotePoll(trx, row!.id, author.id, poll)
    await storeRemoteMentionsAndTags(trx, row!.id, object, mentioned, true)
    await storeStatusEmojis(fed, trx, author, object)
    await countStatus(trx, author.id, visibility, 1)
    await outbox.add(trx, { event: 'status.created', statusId: row!.id, accountId: author.id })
    return row!
  })
  // Its quote and quote policy (docs/federation.md, "Quotes").
  if (stored) await storeRemoteQuote(fed, author, stored, object, depth)
  return stored
}

/**
 * The `Emoji` tags of a status (docs/emoji.md), stored per (shortcode, author's domain) for the worker to copy;
 * the Status entity finds them by the shortcodes of its text. A host under `reject_media` sends none we keep.
 */
async function storeStatusEmojis(fed: Federation, trx: Knex, author: AccountRow, object: Json) {
  const tags = emojiTagsOf(object)
  if (!tags.length || !author.domain || (await domainPolicy(fed.db, author.domain)).rejectMedia) return
  await storeRemoteEmojis(trx, author.domain, tags)
}

/** The usernames (lower case) the Mention tags name, for a match against addressed local accounts. */
function mentionsOf(object: Json): Set<string> {
  const names = new Set<string>()
  for (const t of list(object.tag)) {
    const tag = t as Json
    if (!tag || typeof tag !== 'object' || tag.type !== 'Mention') continue
    const href = idOf(tag.href)
    const m = href ? /\/(?:users\/|@)([A-Za-z0-9_]+)$/.exec(href) : null
    if (m) names.add(m[1]!.toLowerCase())
  }
  return names
}

async function storeRemoteMentionsAndTags(
  trx: Knex,
  statusId: string,
  object: Json,
  mentioned: AccountRow[],
  fresh: boolean,
) {
  if (!fresh) await trx('mentions').where({ status_id: statusId }).delete()
  const unique = [...new Map(mentioned.map((a) => [a.id, a])).values()]
  if (unique.length)
    await trx('mentions').insert(unique.map((a) => ({ status_id: statusId, account_id: a.id })))
  // storeTags reads `#name`s from text: the Hashtag tags are given to it as such.
  await storeTags(
    trx,
    statusId,
    hashtagsOf(object)
      .map((n) => `#${n}`)
      .join(' '),
    fresh,
  )
}

/**
 * Mastodon's ActivityPub::Activity::Update of a Note: the known status of the signer is edited as a local edit is
 * (the first edit keeps the original version, each edit a new one, `status.updated` recorded). Its text, warning,
 * attachments (a new list: new URLs become attachments, dropped ones stay for the history) and poll options are the
 * edit; an Update that only brings a poll's new counts refreshes them without an edit, and one that changes nothing
 * changes nothing.
 */
export async function updateRemoteStatus(fed: Federation, author: AccountRow, object: Json) {
  const uri = idOf(object)
  if (!uri || !sameHost(uri, author.uri!)) return
  const status: StatusRow | undefined = await fed.db('statuses').where({ uri, account_id: author.id }).first()
  if (!status) return
  const { html, language } = contentOf(object)
  const next = {
    text: html,
    ...warningOf(object),
    language: language ?? status.language,
  }
  const locals = await localAccountsNamed(fed, object)
  const mentioned = [
    ...locals.filter((a) => mentionsOf(object).has(a.username.toLowerCase())),
    ...(await remoteAccountsMentioned(fed, object)),
  ]
  const wanted = attachmentsOf(object)
  await fed.db.transaction(async (trx) => {
    const fresh: StatusRow = await trx('statuses').where({ id: status.id }).forUpdate().first()
    const all: MediaAttachmentRow[] = await trx('media_attachments')
      .where({ status_id: status.id })
      .orderBy('id')
    const media = currentAttachments(fresh, all)
    const sameMedia = wanted.map(mediaKey).join('\n') === media.map(mediaKey).join('\n')
    const sameText =
      next.text === fresh.text &&
      next.spoiler_text === fresh.spoiler_text &&
      next.sensitive === fresh.sensitive &&
      next.language === fresh.language
    const pollOptions = await pollOptionsOf(trx, status.id)
    const pollEdited = await storeRemotePoll(trx, status.id, author.id, pollOf(object))
    await storeStatusEmojis(fed, trx, author, object)
    if (sameText && sameMedia && !pollEdited) return
    if (!(await trx('status_edits').where({ status_id: status.id }).first('id')))
      await snapshot(trx, fresh, media, pollOptions, author.id, fresh.created_at)
    const attached = sameMedia ? media : await attachRemoteMedia(trx, author.id, status.id, all, wanted)
    const updatedAt = typeof object.updated === 'string' ? new Date(object.updated) : new Date()
    const [updated]: StatusRow[] = await trx('statuses')
      .where({ id: status.id })
      .update({
        ...next,
        ordered_media_attachment_ids: attached.map((m) => m.id),
        edited_at: Number.isNaN(updatedAt.getTime()) ? trx.fn.now() : updatedAt,
      })
      .returning('*')
    const editId = await snapshot(
      trx,
      updated!,
      attached,
      await pollOptionsOf(trx, status.id),
      author.id,
      updated!.edited_at!,
    )
    await storeRemoteMentionsAndTags(trx, status.id, object, mentioned, false)
    await outbox.add(trx, { event: 'status.updated', statusId: status.id, accountId: author.id, editId })
  })
  // An Update may bring the quote's stamp, or a new quote policy, without an edit (docs/federation.md, "Quotes").
  await storeRemoteQuote(fed, author, status, object)
}

/** What an Update may change of an attachment: its URL, alt text and focal point. */
const mediaKey = (m: { remote_url?: string | null; description: string | null; meta?: unknown }) => {
  const focus = focusOfMeta(m.meta)
  return `${m.remote_url} ${focus ? `${focus.x},${focus.y}` : '-'} ${m.description ?? ''}`
}

/**
 * The attachments of an edited remote status, in the order its Update lists them: those it had already (by URL)
 * are kept with their copies, new URLs become new rows.
 */
async function attachRemoteMedia(
  trx: Knex,
  accountId: string,
  statusId: string,
  existing: MediaAttachmentRow[],
  wanted: ReturnType<typeof attachmentsOf>,
): Promise<MediaAttachmentRow[]> {
  const attached: MediaAttachmentRow[] = []
  for (const m of wanted) {
    const known = existing.find((e) => e.remote_url === m.remote_url && !attached.includes(e))
    if (known) {
      // A new focal point replaces the old one; the sizes of the copy stay.
      const focus = focusOfMeta(m.meta)
      const meta: Record<string, unknown> = { ...((known.meta as Record<string, unknown> | null) ?? {}) }
      if (focus) meta.focus = focus
      else delete meta.focus
      if (known.description !== m.description || mediaKey(known) !== mediaKey(m))
        await trx('media_attachments')
          .where({ id: known.id })
          .update({ description: m.description, meta: JSON.stringify(meta) })
      attached.push({ ...known, description: m.description, meta })
      continue
    }
    const [row]: MediaAttachmentRow[] = await trx('media_attachments')
      .insert({ ...m, account_id: accountId, status_id: statusId, file: '' })
      .returning('*')
    attached.push(row!)
  }
  return attached
}

/**
 * Mastodon's Delete of a status or a boost (by its URI, or a Tombstone): only the signer's own. A Delete that
 * finds nothing leaves a mark (tombstones.ts), so that its Create,
 * handled after it, stores nothing (Mastodon's `delete_arrived_first?`).
 */
export async function deleteRemoteStatus(fed: Federation, author: AccountRow, uri: string | undefined) {
  if (!uri) return
  await fed.db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [uri])
    const status: StatusRow | undefined = await trx('statuses')
      .where({ uri, account_id: author.id })
      .forUpdate()
      .first()
    if (status) return deleteStatus(trx, status)
    if (sameHost(uri, author.uri!)) await markUndone(trx, author.id, uri)
  })
}

/**
 * A status by URI: known, or fetched once (a signed GET) and stored when its author's server says so. The fetched
 * document must be on the host of its URI, and its author on the same host.
 */
export async function fetchStatus(fed: Federation, uri: string, depth = 0): Promise<StatusRow | undefined> {
  const known = await statusByUri(fed, fed.db, uri)
  if (known || uri.startsWith(`${fed.urls.base}/`)) return known
  const object = await fetchDocument(fed, uri)
  if (!object || idOf(object) !== uri) return undefined
  return storeFetchedStatus(fed, object, depth)
}

/**
 * The status a URL names, as Mastodon's ResolveURLService for a status: known by its `uri` or its `url` (the
 * page of it), or fetched. A page's URL answers the Note whose `id` differs: that id, on the same host, is then
 * fetched in turn, so that what is stored always comes from its own URI.
 */
export async function resolveStatusUrl(fed: Federation, url: string): Promise<StatusRow | undefined> {
  const known =
    (await statusByUri(fed, fed.db, url)) ??
    (await fed.db('statuses').where({ url }).whereNotNull('uri').first())
  if (known || url.startsWith(`${fed.urls.base}/`) || !fed.enabled) return known
  const object = await fetchDocument(fed, url)
  const id = idOf(object)
  if (!object || !id || !sameHost(id, url)) return undefined
  return id === url ? storeFetchedStatus(fed, object, 0) : fetchStatus(fed, id)
}

/** A Note-like document fetched (signed) from a server not suspended here; undefined when it cannot be had. */
async function fetchDocument(fed: Federation, url: string): Promise<Json | undefined> {
  if (await isUrlBlocked(fed.db, url)) return undefined
  try {
    const object = await fed.fetchJson(url)
    return isNoteLike(object) ? object : undefined
  } catch (err) {
    fed.logger.info({ err, url }, 'status could not be fetched')
    return undefined
  }
}

/** Stores a fetched Note whose author is on the host of its id (the author fetched too when unknown). */
export async function storeFetchedStatus(fed: Federation, object: Json, depth: number) {
  const id = idOf(object)
  const authorUri = idOf(list(object.attributedTo)[0])
  if (!id || !authorUri || !sameHost(authorUri, id)) return undefined
  const author =
    (await findByUri(fed.db, authorUri)) ?? (await resolveActor(fed, authorUri).catch(() => undefined))
  if (!author) return undefined
  return createRemoteStatus(fed, author, object, true, depth)
}

/**
 * Mastodon's ActivityPub::Activity::Announce: a boost by the signer of a known status, or of one fetched once;
 * only public and unlisted statuses are boosted (a private one is refused, as Mastodon's `announceable?`). The
 * boost keeps the Announce's id as its `uri`.
 */
export async function announce(fed: Federation, booster: AccountRow, activity: Json) {
  const uri = idOf(activity.id)
  const announced = announcedObject(activity.object)
  const objectUri = idOf(announced)
  if (!uri || !objectUri || !sameHost(uri, booster.uri!)) return
  if (await fed.db('statuses').where({ uri }).first('id')) return
  const embedded = announced && typeof announced === 'object' ? (announced as Json) : undefined
  // An embedded object is trusted only from its own author; otherwise it is fetched from its server.
  const original =
    embedded && isNoteLike(embedded) && idOf(list(embedded.attributedTo)[0]) === booster.uri
      ? await createRemoteStatus(fed, booster, embedded, true)
      : await fetchStatus(fed, objectUri)
  if (!original || original.reblog_of_id) return
  if (original.visibility !== 'public' && original.visibility !== 'unlisted') {
    fed.logger.info({ uri, objectUri }, 'Announce of a status that is not public: refused')
    return
  }
  const visibility = visibilityOf(activity, booster)
  await fed.db.transaction(async (trx) => {
    await lockActor(trx, booster.id)
    if (await undone(trx, booster.id, uri)) return
    const row = await reblog(trx, booster, original, visibility === 'direct' ? 'private' : visibility)
    if (!row.uri) await trx('statuses').where({ id: row.id }).update({ uri })
  })
}

/**
 * What an Announce shares: its object, or, when that is a Create (a Lemmy community shares the Create of a post
 * made in it, beside an Announce of the post itself), the Create's object: either way a boost by the announcer
 * (docs/federation.md, "Groups"). The post is fetched from its own server unless its author is the announcer.
 */
function announcedObject(object: unknown): unknown {
  if (!object || typeof object !== 'object' || (object as Json).type !== 'Create') return object
  return (object as Json).object
}

/** Mastodon's ActivityPub::Activity::Like of a local status: a favourite, unless its Undo came first. */
export async function like(fed: Federation, account: AccountRow, activity: Json) {
  const status = await statusByUri(fed, fed.db, idOf(activity.object))
  if (!status || status.uri || status.reblog_of_id) return
  const uri = idOf(activity.id)
  await fed.db.transaction(async (trx) => {
    await lockActor(trx, account.id)
    if (uri && (await undone(trx, account.id, uri))) return
    await favourite(trx, account.id, status, uri)
  })
}

/**
 * Undo of an Announce (the boost, by the Announce's id) or of a Like (the favourite of its object). One that finds
 * nothing to undo marks the activity's id, which may still be on its way (tombstones.ts).
 */
export async function undoStatusActivity(fed: Federation, account: AccountRow, object: unknown) {
  const type = object && typeof object === 'object' ? (object as Json).type : undefined
  const uri = idOf(object)
  if (type === 'Like') {
    const status =
      (await statusByUri(fed, fed.db, idOf((object as Json).object))) ??
      (uri ? await likedStatus(fed.db, account.id, uri) : undefined)
    await fed.db.transaction(async (trx) => {
      await lockActor(trx, account.id)
      const removed = status ? await unfavourite(trx, account.id, status) : false
      if (!removed && uri) await markUndone(trx, account.id, uri)
    })
    return
  }
  // An Undo naming its activity only by id (docs/federation.md, "Undo by id"): a Like of ours is found by the id
  // the favourite kept; a boost, follow or block by theirs (below and in process.ts).
  if (type === undefined && uri) {
    const status = await likedStatus(fed.db, account.id, uri)
    if (status) {
      await fed.db.transaction(async (trx) => {
        await lockActor(trx, account.id)
        await unfavourite(trx, account.id, status)
      })
      return
    }
  }
  if (type !== 'Announce' && type !== undefined) return
  if (!uri) return
  await fed.db.transaction(async (trx) => {
    await lockActor(trx, account.id)
    const boost: StatusRow | undefined = await trx('statuses')
      .where({ uri, account_id: account.id })
      .whereNotNull('reblog_of_id')
      .forUpdate()
      .first()
    if (boost) await deleteStatus(trx, boost)
    else if (type === 'Announce') await markUndone(trx, account.id, uri)
  })
}

/** The status an account's Like of this id favourited, when the favourite is still there. */
async function likedStatus(db: Knex, accountId: string, likeUri: string): Promise<StatusRow | undefined> {
  return db('statuses')
    .join('favourites', 'favourites.status_id', 'statuses.id')
    .where({ 'favourites.uri': likeUri, 'favourites.account_id': accountId })
    .first('statuses.*')
}

/**
 * Mastodon's ActivityPub::Activity::Flag: a report by the signer (usually the other server's instance actor) of
 * the local accounts it names, with the named statuses of each; it reaches the moderators as a local report does.
 */
export async function flag(fed: Federation, reporter: AccountRow, activity: Json) {
  const uris = list(activity.object).flatMap((o) => idOf(o) ?? [])
  const base = fed.urls.base
  const targets = new Map<string, string[]>()
  const statuses: StatusRow[] = []
  for (const uri of uris) {
    const m = uri.startsWith(`${base}/`)
      ? /^\/(?:users\/|@)([A-Za-z0-9_]+)$/.exec(uri.slice(base.length))
      : null
    if (m) {
      const account = await fed
        .db('accounts')
        .whereNull('domain')
        .whereRaw('lower(username) = ?', [m[1]!.toLowerCase()])
        .first('id')
      if (account && !targets.has(account.id)) targets.set(account.id, [])
      continue
    }
    const status = await statusByUri(fed, fed.db, uri)
    if (status && !status.uri) statuses.push(status)
  }
  for (const s of statuses) {
    if (!targets.has(s.account_id)) targets.set(s.account_id, [])
    targets.get(s.account_id)!.push(s.id)
  }
  const comment = typeof activity.content === 'string' ? htmlText(activity.content).slice(0, 1000) : ''
  for (const [targetId, statusIds] of targets)
    await fed.db.transaction((trx) => createReport(trx, reporter.id, targetId, { statusIds, comment }))
}
