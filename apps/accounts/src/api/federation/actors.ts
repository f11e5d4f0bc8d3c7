import type { Request, Response } from 'express'
import type { Knex } from '@roost/db'
import { collectionParams, readParams, repliesParams } from '@roost/routes'
import { Forbidden, NotFound, Unauthenticated } from '@roost/errors'
import { localDomainOf } from '../../config'
import type { AccountsContext } from '../../context'
import type { Urls } from '../../entities/account'
import type { AccountRow, StatusRow } from '../../db/rows'
import { urlsOf } from '../../entities/account'
import { parseId } from '../../domain/records'
import { accountsById, findLocalAccount } from '../../queries/accounts'
import { sendActivityJson, signedFetchOf, wantsActivityJson } from './activity-json'
import { AS, NOTE_CONTEXT } from '../../federation/render/contexts'
import { RESTRICTED_ACTOR_FIELDS, signedRequestAccount } from './authorized-fetch'
import { instanceKeyPair, localKeyPair } from '../../federation/transport/keys'
import { renderActor, renderInstanceActor } from '../../federation/render/actor'
import { renderNotes } from '../../federation/render/note'
import { renderCreate, renderOutboxItem } from '../../federation/render/activities'
import { profilePage, redirectToPage, statusPage } from './pages'
import { actorUri, instanceActorUri, statusUri } from '../../federation/uris'

/**
 * The ActivityPub documents of local accounts (docs/federation.md, "Actors"): the actor (a Person as Mastodon
 * serves it), its collections and its public posts, and the instance actor. The same URLs asked for HTML redirect
 * to the pages (pages.ts).
 */

/** Actors and collection summaries are cached three minutes, as Mastodon's. */
const SUMMARY_CACHE = { maxAge: 180, shared: true }
const PAGE_CACHE = { maxAge: 0, shared: true }
/** Mastodon's FOLLOW_PER_PAGE and the outbox page size. */
const FOLLOWS_PER_PAGE = 12
const OUTBOX_PER_PAGE = 20

/** The local account a federation URL names, or a 404 (also when federation is off). */
async function accountOf(ctx: AccountsContext, req: Request): Promise<AccountRow> {
  if (!ctx.config.FEDERATION) throw new NotFound()
  const account = await findLocalAccount(ctx.db, String(req.params.username))
  if (!account) throw new NotFound()
  return account
}

/** GET /users/:username (and /@:username asked for JSON): the actor; HTML is redirected to the profile page. */
export async function actorDocument(ctx: AccountsContext, req: Request, res: Response) {
  if (!wantsActivityJson(req)) return redirectToPage(ctx, req, res)
  const account = await accountOf(ctx, req)
  const keys = await localKeyPair(ctx.db, account.id)
  const urls = urlsOf(ctx.config)
  const movedTo: AccountRow | undefined = account.moved_to_account_id
    ? await ctx.db('accounts').where({ id: account.moved_to_account_id }).first()
    : undefined
  const actor = renderActor(
    account,
    keys.publicKey,
    urls,
    localDomainOf(ctx.config),
    movedTo ? (movedTo.uri ?? actorUri(urls, movedTo.username)) : undefined,
  )
  const signedFetch = signedFetchOf(res)
  const shown =
    signedFetch.on && !signedFetch.account
      ? Object.fromEntries(
          RESTRICTED_ACTOR_FIELDS.flatMap((k) => (k in actor ? [[k, actor[k as keyof typeof actor]]] : [])),
        )
      : actor
  sendActivityJson(res, shown, SUMMARY_CACHE)
}

/** GET /actor: the instance actor (an Application, as Mastodon's), whose key signs the server's own fetches. */
export async function instanceActorDocument(ctx: AccountsContext, _req: Request, res: Response) {
  if (!ctx.config.FEDERATION) throw new NotFound()
  const keys = await instanceKeyPair(ctx.db)
  const actor = renderInstanceActor(urlsOf(ctx.config), localDomainOf(ctx.config), keys.publicKey)
  sendActivityJson(res, actor, SUMMARY_CACHE)
}

/** GET /actor/outbox: the instance actor posts nothing. */
export function instanceActorOutbox(ctx: AccountsContext, _req: Request, res: Response) {
  if (!ctx.config.FEDERATION) throw new NotFound()
  const id = `${instanceActorUri(urlsOf(ctx.config))}/outbox`
  sendActivityJson(
    res,
    { '@context': AS, id, type: 'OrderedCollection', totalItems: 0, orderedItems: [] },
    SUMMARY_CACHE,
  )
}

/**
 * A collection of accounts (followers or following), as Mastodon's: the summary links the first page, pages of 12
 * actor ids newest first; with `hide_collections` the summary shows only the total and pages are refused (403).
 * Pages go on by keyset (`max_id` of the relationship row), never by offset.
 */
async function accountCollection(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  which: 'followers' | 'following',
) {
  const account = await accountOf(ctx, req)
  const p = readParams(req, collectionParams)
  const urls = urlsOf(ctx.config)
  const id = `${actorUri(urls, account.username)}/${which}`
  const total = which === 'followers' ? account.followers_count : account.following_count
  if (p.page === undefined || p.page === '') {
    const body = account.hide_collections
      ? { '@context': AS, id, type: 'OrderedCollection', totalItems: total }
      : { '@context': AS, id, type: 'OrderedCollection', totalItems: total, first: `${id}?page=1` }
    return sendActivityJson(res, body, SUMMARY_CACHE)
  }
  if (account.hide_collections) throw new Forbidden()
  const [mine, theirs] =
    which === 'followers' ? ['target_account_id', 'account_id'] : ['account_id', 'target_account_id']
  const query = ctx
    .db('follows')
    .join('accounts', 'accounts.id', `follows.${theirs}`)
    .where(`follows.${mine}`, account.id)
    .whereNull('accounts.suspended_at')
    .orderBy('follows.id', 'desc')
    .limit(FOLLOWS_PER_PAGE + 1)
    .select<(Pick<AccountRow, 'username' | 'uri'> & { follow_id: string })[]>(
      'accounts.username',
      'accounts.uri',
      'follows.id as follow_id',
    )
  const maxId = parseId(p.max_id)
  if (maxId) query.where('follows.id', '<', maxId)
  const rows = await query
  const items = rows.slice(0, FOLLOWS_PER_PAGE)
  const page = /^\d{1,6}$/.test(String(p.page)) ? Number(p.page) : 1
  const next =
    rows.length > FOLLOWS_PER_PAGE ? `${id}?page=${page + 1}&max_id=${items.at(-1)!.follow_id}` : undefined
  sendActivityJson(
    res,
    {
      '@context': AS,
      id: `${id}?page=${page}${maxId ? `&max_id=${maxId}` : ''}`,
      type: 'OrderedCollectionPage',
      totalItems: total,
      ...(next ? { next } : {}),
      partOf: id,
      orderedItems: items.map((a) => a.uri ?? actorUri(urls, a.username)),
    },
    PAGE_CACHE,
  )
}

/** GET /users/:username/followers */
export const followersCollection = (ctx: AccountsContext, req: Request, res: Response) =>
  accountCollection(ctx, req, res, 'followers')
/** GET /users/:username/following */
export const followingCollection = (ctx: AccountsContext, req: Request, res: Response) =>
  accountCollection(ctx, req, res, 'following')

/** Posts anyone may fetch: public and unlisted (private ones need a signed follower: Federation II). */
const fetchableStatuses = (ctx: AccountsContext, accountId: string) =>
  ctx
    .db('statuses')
    .where('statuses.account_id', accountId)
    .whereIn('statuses.visibility', ['public', 'unlisted'])

/** A status as its outbox activity: Create of the Note, or Announce of the boosted post. */
async function outboxActivities(ctx: AccountsContext, urls: Urls, author: AccountRow, rows: StatusRow[]) {
  const notes = await renderNotes(ctx.db, urls, rows)
  const boosted = rows.flatMap((r) => (r.reblog_of_id ? [r.reblog_of_id] : []))
  const originals: { id: string; username: string; status_uri: string | null }[] = boosted.length
    ? await ctx
        .db('statuses')
        .join('accounts', 'accounts.id', 'statuses.account_id')
        .whereIn('statuses.id', boosted)
        .select('statuses.id', 'accounts.username', 'statuses.uri as status_uri')
    : []
  return rows.flatMap((s) => {
    if (!s.reblog_of_id) return [renderOutboxItem(urls, author, s, notes.get(s.id)!)]
    const original = originals.find((o) => o.id === s.reblog_of_id)
    // A remote post's own id, else ours.
    const object = original && (original.status_uri ?? statusUri(urls, original.username, original.id))
    return object ? [renderOutboxItem(urls, author, s, object)] : []
  })
}

/**
 * GET /users/:username/outbox: as Mastodon's, a summary (total, first and last page) and pages of 20 activities
 * newest first, going on by `max_id` (older) and `min_id` (newer).
 */
export async function outboxCollection(ctx: AccountsContext, req: Request, res: Response) {
  const account = await accountOf(ctx, req)
  const p = readParams(req, collectionParams)
  const urls = urlsOf(ctx.config)
  const id = `${actorUri(urls, account.username)}/outbox`
  if (p.page === undefined || p.page === '')
    return sendActivityJson(
      res,
      {
        '@context': AS,
        id,
        type: 'OrderedCollection',
        totalItems: account.statuses_count,
        first: `${id}?page=true`,
        last: `${id}?min_id=0&page=true`,
      },
      SUMMARY_CACHE,
    )
  const maxId = parseId(p.max_id)
  const minId = p.min_id === '0' ? '0' : parseId(p.min_id)
  const query = fetchableStatuses(ctx, account.id).limit(OUTBOX_PER_PAGE)
  if (maxId) query.where('id', '<', maxId)
  if (minId) query.where('id', '>', minId).orderBy('id', 'asc')
  else query.orderBy('id', 'desc')
  const found: StatusRow[] = await query
  const rows = minId ? found.reverse() : found
  const cursor = maxId ? `&max_id=${maxId}` : minId ? `&min_id=${minId}` : ''
  sendActivityJson(
    res,
    {
      '@context': NOTE_CONTEXT,
      id: `${id}?page=true${cursor}`,
      type: 'OrderedCollectionPage',
      ...(rows.length ? { next: `${id}?max_id=${rows.at(-1)!.id}&page=true` } : {}),
      ...(rows.length ? { prev: `${id}?min_id=${rows[0]!.id}&page=true` } : {}),
      partOf: id,
      orderedItems: await outboxActivities(ctx, urls, account, rows),
    },
    PAGE_CACHE,
  )
}

/** GET /users/:username/collections/featured: the pinned public and unlisted posts, as Notes. */
export async function featuredCollection(ctx: AccountsContext, req: Request, res: Response) {
  const account = await accountOf(ctx, req)
  const urls = urlsOf(ctx.config)
  const rows: StatusRow[] = await fetchableStatuses(ctx, account.id)
    .join('status_pins', 'status_pins.status_id', 'statuses.id')
    .whereNull('statuses.reblog_of_id')
    .orderBy('status_pins.id', 'desc')
    .select('statuses.*')
  const notes = await renderNotes(ctx.db, urls, rows)
  sendActivityJson(
    res,
    {
      '@context': NOTE_CONTEXT,
      id: `${actorUri(urls, account.username)}/collections/featured`,
      type: 'OrderedCollection',
      totalItems: rows.length,
      orderedItems: rows.map((r) => notes.get(r.id)),
    },
    SUMMARY_CACHE,
  )
}

/**
 * GET /users/:username/statuses/:id: a post as a Note (a Question with a poll); HTML is redirected to its page.
 * Public and unlisted posts are anyone's; private and direct ones only a signed fetch's, as Mastodon's
 * StatusPolicy sees the signer's server (docs/federation.md, "Collections and objects"). Anything else is a 404.
 */
export async function noteDocument(ctx: AccountsContext, req: Request, res: Response) {
  if (!wantsActivityJson(req)) return redirectToPage(ctx, req, res)
  const { note, open } = await servedNote(ctx, req, res)
  sendActivityJson(
    res,
    { '@context': NOTE_CONTEXT, ...note },
    open ? SUMMARY_CACHE : { maxAge: 0, shared: false },
  )
}

/** GET /users/:username/statuses/:id/activity: the post's Create, to whoever may see the Note (Mastodon's). */
export async function createActivityDocument(ctx: AccountsContext, req: Request, res: Response) {
  // Always a document, whatever the Accept: in secure mode a GET that authorizedFetch let through as a page
  // request is unsigned.
  if (ctx.config.AUTHORIZED_FETCH && ctx.config.FEDERATION && !signedFetchOf(res).on)
    throw new Unauthenticated('Request not signed')
  const { account, note, open } = await servedNote(ctx, req, res)
  const urls = urlsOf(ctx.config)
  sendActivityJson(
    res,
    renderCreate(note as Parameters<typeof renderCreate>[0], actorUri(urls, account.username)),
    open ? SUMMARY_CACHE : { maxAge: 0, shared: false },
  )
}

/** Replies in a page of a post's replies (Mastodon's RepliesController's DESCENDANTS_LIMIT). */
const REPLIES_PER_PAGE = 60

/**
 * GET /users/:username/statuses/:id/replies, to whoever may see the post: the Collection of its public and
 * unlisted replies, as Mastodon's RepliesController pages it. The author's own replies come first, oldest first,
 * each a Note; then (`only_other_accounts=true`) everyone else's, each its id; pages go on by `min_id`.
 */
export async function repliesDocument(ctx: AccountsContext, req: Request, res: Response) {
  const { account, note, open } = await servedNote(ctx, req, res)
  const p = readParams(req, repliesParams)
  const noteId = (note as { id: string }).id
  const collectionId = `${noteId}/replies`
  const cache = open ? PAGE_CACHE : { maxAge: 0, shared: false }
  if (p.page !== 'true') {
    const { replies } = note as { replies: object }
    return sendActivityJson(res, { '@context': AS, ...replies }, cache)
  }
  const others = p.only_other_accounts === 'true'
  const minId = parseId(p.min_id)
  const query = ctx
    .db('statuses')
    .where({ in_reply_to_id: parseId(req.params.id) })
    .whereIn('visibility', ['public', 'unlisted'])
    .orderBy('id')
    .limit(REPLIES_PER_PAGE)
  if (others) query.whereNot({ account_id: account.id })
  else query.where({ account_id: account.id })
  if (minId) query.where('id', '>', minId)
  const rows: StatusRow[] = await query
  const urls = urlsOf(ctx.config)
  const notes = others ? new Map<string, object>() : await renderNotes(ctx.db, urls, rows)
  const authors = others
    ? await accountsById(
        ctx.db,
        rows.map((r) => r.account_id),
      )
    : new Map()
  const full = rows.length === REPLIES_PER_PAGE
  const next = others
    ? full && `${collectionId}?min_id=${rows.at(-1)!.id}&only_other_accounts=true&page=true`
    : full
      ? `${collectionId}?min_id=${rows.at(-1)!.id}&page=true`
      : `${collectionId}?only_other_accounts=true&page=true`
  const cursor = [minId && `min_id=${minId}`, others && 'only_other_accounts=true', 'page=true']
  sendActivityJson(
    res,
    {
      '@context': NOTE_CONTEXT,
      id: `${collectionId}?${cursor.filter(Boolean).join('&')}`,
      type: 'CollectionPage',
      ...(next ? { next } : {}),
      partOf: collectionId,
      items: rows.map((r) =>
        others ? (r.uri ?? statusUri(urls, authors.get(r.account_id)!.username, r.id)) : notes.get(r.id),
      ),
    },
    cache,
  )
}

/** The Note of `:username`'s post `:id` if the asker may see it (404 otherwise), and whether anyone may. */
async function servedNote(ctx: AccountsContext, req: Request, res: Response) {
  const account = await accountOf(ctx, req)
  const id = parseId(req.params.id)
  const row: StatusRow | undefined =
    id && !account.suspended_at
      ? await ctx.db('statuses').where({ account_id: account.id, id }).whereNull('reblog_of_id').first()
      : undefined
  if (!row) throw new NotFound()
  const open = row.visibility === 'public' || row.visibility === 'unlisted'
  if (!open && !(await signerMaySee(ctx, req, res, row))) throw new NotFound()
  const notes = await renderNotes(ctx.db, urlsOf(ctx.config), [row])
  return { account, note: notes.get(row.id)!, open }
}

/**
 * Whether the server of a signed fetch may see a private or direct post: one of its accounts is mentioned in it,
 * or (private) follows its author. A fetch that is unsigned, or whose signature does not verify, may not.
 */
async function signerMaySee(ctx: AccountsContext, req: Request, res: Response, row: StatusRow) {
  if (!ctx.config.FEDERATION) return false
  let signer = signedFetchOf(res).account
  if (!signer && req.get('Signature'))
    signer = await signedRequestAccount(ctx, req).catch((err: unknown) => {
      if (err instanceof Unauthenticated || err instanceof Forbidden) return undefined
      throw err
    })
  if (!signer?.domain) return false
  const domain = signer.domain
  const onServer = (q: Knex.QueryBuilder, column: string) =>
    q.join('accounts', 'accounts.id', column).whereRaw('lower(accounts.domain) = lower(?)', [domain])
  const mentioned = await onServer(
    ctx.db('mentions').where('mentions.status_id', row.id),
    'mentions.account_id',
  ).first('mentions.account_id')
  if (mentioned) return true
  if (row.visibility !== 'private') return false
  const follower = await onServer(
    ctx.db('follows').where('follows.target_account_id', row.account_id),
    'follows.account_id',
  ).first('follows.account_id')
  return !!follower
}

/** GET /@:username: the profile page, or the actor for ActivityPub clients (Mastodon serves both there). */
export const profileOrActor = (ctx: AccountsContext, req: Request, res: Response) =>
  wantsActivityJson(req) ? actorDocument(ctx, req, res) : profilePage(ctx, req, res)

/** GET /@:username/:id: the status page, or the Note for ActivityPub clients. */
export const statusPageOrNote = (ctx: AccountsContext, req: Request, res: Response) =>
  wantsActivityJson(req) ? noteDocument(ctx, req, res) : statusPage(ctx, req, res)
