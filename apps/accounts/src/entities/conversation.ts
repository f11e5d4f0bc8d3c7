import type { Knex } from '@roost/db'
import type { AccountConversationRow, StatusRow } from '../db/rows'
import { accountsById } from '../queries/accounts'
import type { Urls } from './account'
import { renderAccount } from './account'
import { renderStatuses } from './status'

/**
 * Mastodon's Conversation entity (app/serializers/rest/conversation_serializer.rb): `accounts` are the other
 * participants (the owner alone for a note to oneself), `last_status` the newest direct status in it, rendered for
 * the owner.
 */
export async function renderConversations(
  db: Knex,
  urls: Urls,
  rows: AccountConversationRow[],
  viewerId: string,
) {
  const accounts = await accountsById(db, [
    viewerId,
    ...rows.flatMap((r) => r.participant_account_ids.map(String)),
  ])
  const lastIds = rows.flatMap((r) => (r.last_status_id ? [String(r.last_status_id)] : []))
  const statusRows: StatusRow[] = lastIds.length ? await db('statuses').whereIn('id', lastIds) : []
  const rendered = await renderStatuses(db, urls, statusRows, viewerId)
  const statuses = new Map(statusRows.map((s, i) => [s.id, rendered[i]]))
  return rows.map((row) => {
    const participants = row.participant_account_ids.flatMap((id) => accounts.get(String(id)) ?? [])
    return {
      id: row.id,
      unread: row.unread,
      accounts: (participants.length ? participants : [accounts.get(viewerId)!]).map((a) =>
        renderAccount(a, urls),
      ),
      last_status: (row.last_status_id && statuses.get(String(row.last_status_id))) || null,
    }
  })
}
