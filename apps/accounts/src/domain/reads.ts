import { firstRowPerTable } from '@roost/db'
import type { Knex } from '@roost/db'
import type { AccountRow, StatusRow } from '../db/rows'
import { isWatched, watchedSql } from './notifications'

/**
 * Rows that several steps of one piece of work read, read once and shared (docs/performance.md, "Write path"):
 * the accounts worker makes one per activity, so its consumers (notifications, feeds, streaming, federation) read
 * a new status, its author, its hashtags and its mentions once between them, in one statement, instead of once
 * each. A step that must hold a row while it works still locks it in its own transaction; these are plain reads,
 * as fresh as the work that asks.
 */
export interface Reads {
  /** A status; its author, mentions and hashtags come with it. */
  status(id: string): Promise<StatusRow | undefined>
  account(id: string): Promise<AccountRow | undefined>
  /** A status's hashtags: ids and normalised names. */
  tags(statusId: string): Promise<{ id: string; name: string }[]>
  /** The accounts a status mentions (do not change the array: it is shared). */
  mentions(statusId: string): Promise<readonly string[]>
  /** Whether a follower of the account asked to hear of its new posts (`watchedSql`). */
  watched(accountId: string): Promise<boolean>
}

export function createReads(db: Knex): Reads {
  const account = once<AccountRow | undefined>((id) => db('accounts').where({ id }).first())
  const tags = once<{ id: string; name: string }[]>((statusId) =>
    db('status_tags')
      .join('tags', 'tags.id', 'status_tags.tag_id')
      .where('status_tags.status_id', statusId)
      .orderBy('tags.id')
      .select('tags.id', 'tags.name'),
  )
  const mentions = once<readonly string[]>((statusId) =>
    db('mentions').where({ status_id: statusId }).pluck('account_id'),
  )
  const watched = once<boolean>((accountId) => isWatched(db, accountId))
  // A status comes with its author, its mentions, its hashtags and whether its author is watched, in one
  // statement: whoever reads a status next asks for those (the notifications of a new status, the last).
  const status = once(async (id) => {
    const row = await firstRowPerTable<[StatusRow, AccountRow, StatusExtras]>(db, STATUS_WITH_EXTRAS, [id])
    if (!row) return undefined
    const [found, author, extras] = row
    account.prime(author.id, author)
    mentions.prime(id, extras.mention_ids)
    tags.prime(id, extras.tags)
    watched.prime(author.id, extras.author_watched)
    return found
  })
  return { status, account, tags, mentions, watched }
}

interface StatusExtras {
  mention_ids: string[]
  tags: { id: string; name: string }[]
  author_watched: boolean
}

const STATUS_WITH_EXTRAS = `
  SELECT statuses.*, accounts.*,
         ARRAY(SELECT account_id::text FROM mentions WHERE status_id = statuses.id) AS mention_ids,
         (SELECT COALESCE(json_agg(json_build_object('id', tags.id::text, 'name', tags.name) ORDER BY tags.id), '[]')
            FROM status_tags JOIN tags ON tags.id = status_tags.tag_id
           WHERE status_tags.status_id = statuses.id) AS tags,
         ${watchedSql('statuses.account_id')} AS author_watched
    FROM statuses JOIN accounts ON accounts.id = statuses.account_id
   WHERE statuses.id = ?`

/**
 * Memoises a read by key. The read's promise is kept, not the knex builder it returns: a builder is a thenable
 * that runs its query again each time it is awaited. `prime` keeps a value another read brought along, unless
 * the key was asked for already.
 */
function once<T>(read: (key: string) => PromiseLike<T>) {
  const kept = new Map<string, Promise<T>>()
  const get = (key: string): Promise<T> => {
    let value = kept.get(key)
    if (!value) kept.set(key, (value = Promise.resolve(read(key))))
    return value
  }
  return Object.assign(get, {
    prime(key: string, value: T) {
      if (!kept.has(key)) kept.set(key, Promise.resolve(value))
    },
  })
}
