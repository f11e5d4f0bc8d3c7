import type { StatusRow } from '../db/rows'
import type { Federation } from '../federation/transport/client'
import { idOf, isNoteLike, sameHost, storeFetchedStatus } from '../federation/inbox/statuses'
import type { BoundedFetch } from '../federation/collections'
import { collectionItems, isJson } from '../federation/collections'

type Json = Record<string, unknown>

/** How deep below the thread's root replies are followed (a reply to a reply to … the root). */
export const REPLIES_MAX_DEPTH = 5
/** Posts read at most for one thread, fetched or inline (Mastodon's fetch-all-replies stops at 1000; Roost lower). */
export const REPLIES_MAX_STATUSES = 100
/** Pages of one `replies` or `context` collection read at most. */
export const REPLIES_MAX_PAGES = 5
/** The whole fetch of one thread stops after this long. */
export const REPLIES_DEADLINE_MS = 60_000

/**
 * Complete threads (docs/federation.md, "Complete threads"), as Mastodon 4.4's FetchAllRepliesWorker: from the
 * remote status at the thread's root, its FEP-7888 `context` collection where its server publishes one, then its
 * `replies` collection and the replies' own `replies`, breadth first, REPLIES_MAX_DEPTH levels down, at most
 * REPLIES_MAX_STATUSES documents and REPLIES_DEADLINE_MS in all, each collection REPLIES_MAX_PAGES pages, every
 * document through the bounded fetch. An item inline in a collection is taken as it is when it is on the
 * collection's host, fetched from its id otherwise; each post is stored as a fetched status (its author's host
 * must be its own). Returns how many posts were new here.
 */
export async function fetchReplies(fed: Federation, fetch: BoundedFetch, root: StatusRow): Promise<number> {
  if (!root.uri) return 0
  const deadline = Date.now() + REPLIES_DEADLINE_MS
  let budget = REPLIES_MAX_STATUSES
  let added = 0
  const seen = new Set<string>([root.uri])
  const documentOf = async (entry: unknown, collectionHost: string): Promise<Json | undefined> => {
    // A context collection may list the Create activities rather than the posts.
    const item = isJson(entry) && entry.type === 'Create' ? entry.object : entry
    const uri = idOf(item)
    if (!uri || seen.has(uri) || budget <= 0) return undefined
    seen.add(uri)
    if (uri.startsWith(`${fed.urls.base}/`)) return undefined
    // Inline or fetched, every post counts: a document cannot bring in more than the budget either.
    budget--
    if (isNoteLike(item) && sameHost(uri, collectionHost)) return item
    const doc = await fetch(uri, deadline).catch(() => undefined)
    return isNoteLike(doc) && idOf(doc) === uri ? doc : undefined
  }
  /** Stores a post; counts it, and its parent fetched with it, when they are new here. */
  const store = async (doc: Json) => {
    const candidates = [idOf(doc), idOf(doc.inReplyTo)].filter((u): u is string => !!u)
    const before = await fed
      .db('statuses')
      .whereIn('uri', candidates)
      .count<{ count: string }[]>('* as count')
    const status = await storeFetchedStatus(fed, doc, 0).catch((err) => {
      fed.logger.info({ err, uri: idOf(doc) }, 'a reply could not be stored')
      return undefined
    })
    if (status) {
      const after = await fed
        .db('statuses')
        .whereIn('uri', candidates)
        .count<{ count: string }[]>('* as count')
      added += Number(after[0]!.count) - Number(before[0]!.count)
    }
    return status
  }
  /** The items of a collection (inline or by URL), bounded. */
  const itemsOf = async (collection: unknown): Promise<unknown[]> => {
    if (!collection || Date.now() >= deadline) return []
    return collectionItems(fetch, collection, {
      maxPages: REPLIES_MAX_PAGES,
      maxItems: REPLIES_MAX_STATUSES,
      deadline,
    }).catch(() => [])
  }

  budget--
  const rootDoc = await fetch(root.uri, deadline).catch(() => undefined)
  if (!isNoteLike(rootDoc)) return 0
  const rootHost = root.uri
  let level: { doc: Json; host: string }[] = [{ doc: rootDoc, host: rootHost }]
  // FEP-7888: a `context` that is a collection lists the whole conversation; its posts' replies are read too.
  if (
    (typeof rootDoc.context === 'string' && sameHost(rootDoc.context, root.uri)) ||
    isJson(rootDoc.context)
  ) {
    const contextHost = typeof rootDoc.context === 'string' ? rootDoc.context : root.uri
    for (const item of await itemsOf(rootDoc.context)) {
      if (Date.now() >= deadline || budget <= 0) break
      const doc = await documentOf(item, contextHost)
      if (doc && (await store(doc))) level.push({ doc, host: idOf(doc)! })
    }
  }
  for (let depth = 1; depth <= REPLIES_MAX_DEPTH && level.length; depth++) {
    const nextLevel: { doc: Json; host: string }[] = []
    for (const { doc } of level) {
      if (Date.now() >= deadline || budget <= 0) break
      const replies = doc.replies
      const host = typeof replies === 'string' ? replies : (idOf(doc) ?? rootHost)
      for (const item of await itemsOf(replies)) {
        if (Date.now() >= deadline || budget <= 0) break
        const reply = await documentOf(item, host)
        if (reply && (await store(reply))) nextLevel.push({ doc: reply, host: idOf(reply)! })
      }
    }
    level = nextLevel
  }
  return added
}
