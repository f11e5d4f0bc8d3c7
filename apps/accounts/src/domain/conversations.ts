import type { Knex } from '@roost/db'
import type { AccountConversationRow, StatusRow } from '../db/rows'

/** A Postgres array literal of ids (knex would spread a JS array bound to a raw `?`). */
const pgArray = (ids: string[]) => `{${ids.join(',')}}`

const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)

/** Everyone in a status but `ownerId`: its author and the accounts it mentions, sorted. */
async function participantsOf(trx: Knex, ownerId: string, status: StatusRow): Promise<string[]> {
  const mentioned: string[] = await trx('mentions').where({ status_id: status.id }).pluck('account_id')
  return [...new Set([status.account_id, ...mentioned.map(String)])].filter((id) => id !== ownerId).sort(byId)
}

/**
 * Mastodon's `AccountConversation.add_status`, run by the accounts worker (docs/statuses.md, "Conversations"):
 * files a direct status in the owner's conversation for its thread and participants (made if need be), which
 * becomes unread unless the owner wrote it. Idempotent: a status already there changes nothing. The row is locked,
 * so two statuses arriving at once both land. Answers the conversation's id when it changed (to stream it once
 * committed, as Mastodon's after_commit does), else undefined.
 */
export async function addToConversation(
  trx: Knex,
  ownerId: string,
  status: StatusRow,
): Promise<string | undefined> {
  if (!status.conversation_id) return undefined
  const key = {
    account_id: ownerId,
    conversation_id: status.conversation_id,
    participant_account_ids: await participantsOf(trx, ownerId, status),
  }
  await trx('account_conversations')
    .insert({ ...key, participant_account_ids: pgArray(key.participant_account_ids) })
    .onConflict(['account_id', 'conversation_id', 'participant_account_ids'])
    .ignore()
  const row: AccountConversationRow = await trx('account_conversations')
    .where({ account_id: key.account_id, conversation_id: key.conversation_id })
    .whereRaw('participant_account_ids = ?::bigint[]', [pgArray(key.participant_account_ids)])
    .forUpdate()
    .first()
  const ids = row.status_ids.map(String)
  if (ids.includes(status.id)) return undefined
  const statusIds = [...ids, status.id].sort(byId)
  await trx('account_conversations')
    .where({ id: row.id })
    .update({
      status_ids: pgArray(statusIds),
      last_status_id: statusIds.at(-1),
      unread: status.account_id !== ownerId,
    })
  return String(row.id)
}

/**
 * Mastodon's `AccountConversation.remove_status` for a deleted direct status: it leaves the conversations of the
 * accounts it was in, and a conversation left empty is deleted. Answers the ids of the conversations that remain
 * (changed: streamed once committed; a deleted one is not, as in Mastodon).
 */
export async function removeFromConversations(
  trx: Knex,
  accountIds: string[],
  statusId: string,
): Promise<string[]> {
  const changed: string[] = []
  const rows: AccountConversationRow[] = await trx('account_conversations')
    .whereIn('account_id', accountIds)
    .whereRaw('status_ids @> ?::bigint[]', [pgArray([statusId])])
    .forUpdate()
  for (const row of rows) {
    const statusIds = row.status_ids.map(String).filter((id) => id !== statusId)
    if (!statusIds.length) await trx('account_conversations').where({ id: row.id }).delete()
    else {
      await trx('account_conversations')
        .where({ id: row.id })
        .update({ status_ids: pgArray(statusIds), last_status_id: statusIds.at(-1) })
      changed.push(String(row.id))
    }
  }
  return changed
}

/** Blocking someone deletes one's conversations with them (Mastodon's AfterBlockService). */
export async function dropConversationsWith(trx: Knex, ownerId: string, targetId: string) {
  await trx('account_conversations')
    .where({ account_id: ownerId })
    .whereRaw('? = ANY(participant_account_ids)', [targetId])
    .delete()
}
