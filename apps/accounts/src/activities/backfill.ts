import type { AccountRow } from '../db/rows'
import type { Federation } from '../federation/transport/client'
import { createRemoteStatus, idOf } from '../federation/inbox/statuses'
import type { Consumer } from './consumer'

type Json = Record<string, unknown>

/** Pages of an outbox read at most: a server that answers with endless `next` links gets no more. */
export const BACKFILL_MAX_PAGES = 5
/** The whole backfill of one account stops after this long, whatever the server does. */
export const BACKFILL_DEADLINE_MS = 60_000

const itemsOf = (c: Json): unknown[] => {
  const v = c.orderedItems ?? c.items
  return Array.isArray(v) ? v : []
}
const isJson = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v)

/**
 * The newest `limit` posts of a remote account's outbox (docs/federation.md, "Backfill of remote profiles"): its
 * `Create` activities, newest first as outboxes list them, read from the collection and its pages (at most
 * BACKFILL_MAX_PAGES, each through the SSRF-guarded client and its size limit, all within BACKFILL_DEADLINE_MS);
 * only objects on the account's own host (checked again when stored). Boosts are not taken.
 */
export async function outboxPosts(fed: Federation, account: AccountRow, limit: number): Promise<Json[]> {
  if (!account.outbox_url || limit <= 0) return []
  const deadline = Date.now() + BACKFILL_DEADLINE_MS
  const posts: Json[] = []
  const take = (items: unknown[]) => {
    for (const item of items) {
      if (posts.length >= limit) return
      if (!isJson(item) || item.type !== 'Create') continue
      const object = item.object
      if (isJson(object) && idOf(object)) posts.push(object)
    }
  }
  const collection = await fed.fetchJson(account.outbox_url)
  take(itemsOf(collection))
  let next: unknown = collection.first
  for (let page = 0; page < BACKFILL_MAX_PAGES && posts.length < limit && next; page++) {
    if (Date.now() > deadline) break
    const json = isJson(next) ? next : typeof next === 'string' ? await fed.fetchJson(next) : undefined
    if (!json) break
    take(itemsOf(json))
    next = json.next
  }
  return posts
}

/**
 * Stores the newest posts of a remote account seen here for the first time, oldest first so that they are in
 * order, through the inbox's status creation (`fetched`: nobody here needs to follow the author). A post that
 * cannot be stored is skipped; a server that cannot be read leaves the profile as it was.
 */
export async function backfillAccount(fed: Federation, account: AccountRow, limit: number): Promise<number> {
  let posts: Json[]
  try {
    posts = await outboxPosts(fed, account, limit)
  } catch (err) {
    fed.logger.info({ err, account: account.uri }, 'the outbox of a remote account could not be read')
    return 0
  }
  let stored = 0
  for (const object of posts.reverse()) {
    try {
      if (await createRemoteStatus(fed, account, object, true)) stored++
    } catch (err) {
      fed.logger.info({ err, uri: idOf(object) }, 'a post of a remote outbox could not be stored')
    }
  }
  return stored
}

/** `remote_account.discovered`: the account's newest posts (docs/federation.md, "Backfill of remote profiles"). */
export function backfillConsumer(fed: Federation, limit: number): Consumer {
  return {
    'remote_account.discovered': async ({ accountId }, reads) => {
      if (!fed.enabled || limit <= 0) return
      const account = await reads.account(accountId)
      if (!account?.domain || account.suspended_at) return
      await backfillAccount(fed, account, limit)
    },
  }
}
