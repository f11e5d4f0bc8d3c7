import type { Knex } from '@roost/db'
import type { StatusRow } from '../db/rows'
import * as outbox from '../outbox/outbox'

/** Favourites a status; favouriting it again changes nothing and records nothing. */
export async function favourite(trx: Knex, accountId: string, status: StatusRow, uri?: string) {
  const [row] = await trx('favourites')
    // A remote Like keeps its id, for an Undo that names it only by that (docs/federation.md, "Undo by id").
    .insert({ account_id: accountId, status_id: status.id, ...(uri ? { uri } : {}) })
    .onConflict(['account_id', 'status_id'])
    .ignore()
    .returning('id')
  if (row)
    await outbox.add(trx, {
      event: 'favourite.created',
      favouriteId: row.id,
      accountId,
      statusId: status.id,
      statusAccountId: status.account_id,
    })
}

/** Removes a favourite; whether there was one. */
export async function unfavourite(trx: Knex, accountId: string, status: StatusRow): Promise<boolean> {
  const [removed] = await trx('favourites')
    .where({ account_id: accountId, status_id: status.id })
    .delete()
    .returning('id')
  if (removed)
    await outbox.add(trx, {
      event: 'favourite.removed',
      favouriteId: removed.id,
      accountId,
      statusId: status.id,
      statusAccountId: status.account_id,
    })
  return Boolean(removed)
}
