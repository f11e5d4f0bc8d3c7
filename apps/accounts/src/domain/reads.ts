import type { Knex } from '@roost/db'
import type { AccountRow } from '../entities/account'
import type { StatusRow } from '../entities/status'

/**
 * Rows that several steps of one piece of work read, read once and shared (docs/performance.md, "Write path"):
 * the accounts worker makes one per activity, so its consumers (notifications, feeds, streaming, federation) read
 * a new status, its author, its hashtags and its mentions once between them instead of once each. A step that must hold a row
 * while it works still locks it in its own transaction; these are plain reads, as fresh as the work that asks.
 */
export interface Reads {
  status(id: string): Promise<StatusRow | undefined>
  account(id: string): Promise<AccountRow | undefined>
  /** A status's hashtags: ids and normalised names. */
  tags(statusId: string): Promise<{ id: string; name: string }[]>
  /** The accounts a status mentions (do not change the array: it is shared). */
  mentions(statusId: string): Promise<readonly string[]>
}

export function createReads(db: Knex): Reads {
  return {
    status: once((id) => db('statuses').where({ id }).first()),
    account: once((id) => db('accounts').where({ id }).first()),
    tags: once((statusId) =>
      db('status_tags')
        .join('tags', 'tags.id', 'status_tags.tag_id')
        .where('status_tags.status_id', statusId)
        .select('tags.id', 'tags.name'),
    ),
    mentions: once((statusId) => db('mentions').where({ status_id: statusId }).pluck('account_id')),
  }
}

/**
 * Memoises a read by key. The read's promise is kept, not the knex builder it returns: a builder is a thenable
 * that runs its query again each time it is awaited.
 */
function once<T>(read: (key: string) => PromiseLike<T>): (key: string) => Promise<T> {
  const kept = new Map<string, Promise<T>>()
  return (key) => {
    let value = kept.get(key)
    if (!value) kept.set(key, (value = Promise.resolve(read(key))))
    return value
  }
}
