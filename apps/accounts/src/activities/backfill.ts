import type { AccountRow, StatusRow } from '../db/rows'
import type { Federation } from '../federation/transport/client'
import { createRemoteStatus, idOf, isNoteLike, sameHost } from '../federation/inbox/statuses'
import { replacePins } from '../federation/inbox/featured'
import type { BoundedFetch } from '../federation/collections'
import { collectionItems, isJson } from '../federation/collections'

type Json = Record<string, unknown>

/** Pages of an outbox read at most: a server that answers with endless `next` links gets no more. */
export const BACKFILL_MAX_PAGES = 5
/** The whole backfill of one account stops after this long, whatever the server does. */
export const BACKFILL_DEADLINE_MS = 60_000
/** Pinned posts taken at most (Mastodon pins 5 at most; other servers more). */
export const BACKFILL_MAX_PINNED = 10

/**
 * The newest `limit` posts of a remote account's outbox (docs/federation.md, "Backfill of remote profiles"): its
 * `Create` activities, newest first as outboxes list them, read from the collection and its pages by
 * `collectionItems` (at most BACKFILL_MAX_PAGES pages, each through the bounded fetch). An object inline is taken as
 * it is; one given by its id only, on the account's host, is fetched (through the bounded fetch too). Boosts are not
 * taken.
 */
export async function outboxPosts(
  fetch: BoundedFetch,
  account: AccountRow,
  limit: number,
  deadline = Date.now() + BACKFILL_DEADLINE_MS,
): Promise<Json[]> {
  if (!account.outbox_url || limit <= 0) return []
  const objectsOf = (items: unknown[]) =>
    items.flatMap((item): (Json | string)[] => {
      if (!isJson(item) || item.type !== 'Create') return []
      const object = item.object
      if (isJson(object)) return idOf(object) ? [object] : []
      return typeof object === 'string' && sameHost(object, account.uri!) ? [object] : []
    })
  // Items at most: the posts wanted among a few pages' worth of boosts and other activities.
  const items = await collectionItems(fetch, account.outbox_url, {
    maxPages: BACKFILL_MAX_PAGES,
    maxItems: limit * 4,
    deadline,
    enough: (read) => objectsOf(read).length >= limit,
  })
  const posts: Json[] = []
  for (const object of objectsOf(items).slice(0, limit)) {
    if (isJson(object)) posts.push(object)
    else if (Date.now() < deadline) {
      const doc = await fetch(object, deadline).catch(() => undefined)
      if (isNoteLike(doc) && idOf(doc) === object) posts.push(doc)
    }
  }
  return posts
}

/**
 * The account's pinned posts, from its `featured` collection (one page, BACKFILL_MAX_PINNED at most): inline
 * objects of its own host are taken as they are, others fetched from their id; they replace the pins stored.
 */
async function backfillPinned(fed: Federation, fetch: BoundedFetch, account: AccountRow, deadline: number) {
  if (!account.featured_url) return
  const items = await collectionItems(fetch, account.featured_url, {
    maxPages: 1,
    maxItems: BACKFILL_MAX_PINNED,
    deadline,
  })
  const pinned: StatusRow[] = []
  for (const item of items) {
    const uri = idOf(item)
    if (!uri || !sameHost(uri, account.uri!)) continue
    try {
      const object = isNoteLike(item) ? item : await fetch(uri, deadline)
      if (!isNoteLike(object) || idOf(object) !== uri) continue
      const status = await createRemoteStatus(fed, account, object, true)
      if (status && status.account_id === account.id && !status.reblog_of_id) pinned.push(status)
    } catch (err) {
      fed.logger.info({ err, uri }, 'a pinned post of a remote account could not be read')
    }
  }
  await replacePins(fed, account, pinned)
}

/**
 * Reads a remote account's newest posts and its pinned ones (`fetch.outbox`, the `fetches` queue): the posts are
 * stored oldest first so that they are in order, through the inbox's status creation (`fetched`: nobody here needs
 * to follow the author). A post that cannot be stored is skipped; a server that cannot be read leaves the profile
 * as it was. The account is marked read (`backfilled_at`) either way.
 */
export async function backfillAccount(
  fed: Federation,
  fetch: BoundedFetch,
  account: AccountRow,
  limit: number,
): Promise<number> {
  const deadline = Date.now() + BACKFILL_DEADLINE_MS
  await fed.db('accounts').where({ id: account.id }).update({ backfilled_at: fed.db.fn.now() })
  let posts: Json[] = []
  try {
    posts = await outboxPosts(fetch, account, limit, deadline)
  } catch (err) {
    fed.logger.info({ err, account: account.uri }, 'the outbox of a remote account could not be read')
  }
  let stored = 0
  for (const object of posts.reverse()) {
    try {
      if (await createRemoteStatus(fed, account, object, true)) stored++
    } catch (err) {
      fed.logger.info({ err, uri: idOf(object) }, 'a post of a remote outbox could not be stored')
    }
  }
  try {
    await backfillPinned(fed, fetch, account, deadline)
  } catch (err) {
    fed.logger.info(
      { err, account: account.uri },
      'the featured collection of a remote account could not be read',
    )
  }
  return stored
}
