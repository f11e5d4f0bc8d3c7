import type { Knex } from '@roost/db'

/**
 * The inbox queue runs an actor's activities concurrently, so an activity and the Undo sent right after it (a
 * Follow, a Block, a Like, an Announce) may be processed in either order (docs/federation.md, "Inboxes"). The
 * transactions that make or undo one of them take a lock per actor, so they run one after the other, and an Undo
 * that finds nothing leaves a mark (for a day) under the id it names, so that the activity processed after it does
 * nothing (Mastodon's `delete_later!`). A Delete that comes before its Create leaves the same mark.
 */
export async function lockActor(trx: Knex, accountId: string) {
  await trx.raw(`SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`, [`inbox-actor:${accountId}`])
}

const TOMBSTONE_DAYS = 1

/** Marks `uri` as undone (or deleted) by `accountId` before it arrived. */
export async function markUndone(trx: Knex, accountId: string, uri: string) {
  await trx('inbox_tombstones')
    .where('created_at', '<', trx.raw(`now() - interval '${TOMBSTONE_DAYS} day'`))
    .delete()
  await trx('inbox_tombstones')
    .insert({ account_id: accountId, uri })
    .onConflict(['account_id', 'uri'])
    .ignore()
}

/** Whether an Undo came first for `uri`; the mark is used up (an id may be sent again later, as Misskey's are). */
export const undone = async (trx: Knex, accountId: string, uri: string) =>
  (await trx('inbox_tombstones').where({ account_id: accountId, uri }).delete()) > 0
