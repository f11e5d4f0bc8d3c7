import type { Knex } from '@roost/db'
import { Invalid, NotFound } from '@roost/errors'
import type { ListRow } from '../db/rows'
import * as outbox from '../outbox/outbox'
import { parseId } from './records'

/** Mastodon's List::PER_ACCOUNT_LIMIT and TITLE_LENGTH_LIMIT. */
export const MAX_LISTS = 50
export const MAX_TITLE = 256

export interface ListChanges {
  title?: string
  repliesPolicy?: ListRow['replies_policy']
  exclusive?: boolean
}

/** One of the owner's lists, else 404 "Record not found" (another's list too, as Mastodon). */
export async function findOwnList(db: Knex, ownerId: string, id: unknown): Promise<ListRow> {
  const listId = parseId(id)
  const row: ListRow | undefined = listId
    ? await db('lists').where({ id: listId, account_id: ownerId }).first()
    : undefined
  if (!row) throw new NotFound()
  return row
}

function checkTitle(title: string | undefined) {
  if (title === undefined || !title.trim()) throw new Invalid("Validation failed: Title can't be blank")
  if ([...title].length > MAX_TITLE)
    throw new Invalid(`Validation failed: Title is too long (maximum is ${MAX_TITLE} characters)`)
}

/** Creates a list: a title is needed, and an account has at most 50 lists. */
export async function createList(trx: Knex, ownerId: string, c: ListChanges): Promise<ListRow> {
  checkTitle(c.title)
  // Locking the owner's row counts two creations at once one after the other.
  await trx('accounts').where({ id: ownerId }).forUpdate().first('id')
  const [{ n }] = await trx('lists').where({ account_id: ownerId }).count('* as n')
  if (Number(n) >= MAX_LISTS)
    throw new Invalid('Validation failed: You have reached the maximum number of lists')
  const [row]: ListRow[] = await trx('lists')
    .insert({
      account_id: ownerId,
      title: c.title,
      replies_policy: c.repliesPolicy ?? 'list',
      exclusive: c.exclusive ?? false,
    })
    .returning('*')
  return row!
}

/** Changes what is given; a blank title is refused. Takes effect on statuses inserted from now on. */
export async function updateList(trx: Knex, list: ListRow, c: ListChanges): Promise<ListRow> {
  if (c.title !== undefined) checkTitle(c.title)
  const changes = {
    ...(c.title !== undefined ? { title: c.title } : {}),
    ...(c.repliesPolicy !== undefined ? { replies_policy: c.repliesPolicy } : {}),
    ...(c.exclusive !== undefined ? { exclusive: c.exclusive } : {}),
  }
  if (!Object.keys(changes).length) return list
  const [row]: ListRow[] = await trx('lists')
    .where({ id: list.id })
    .update({ ...changes, updated_at: trx.fn.now() })
    .returning('*')
  return row!
}

/** Deletes a list with its members; the worker drops its feed. */
export async function deleteList(trx: Knex, list: ListRow) {
  await trx('lists').where({ id: list.id }).delete()
  await outbox.add(trx, { event: 'list.deleted', listId: list.id, accountId: list.account_id })
}

/**
 * Mastodon's AddAccountsToListService: every account must exist (else 404), be followed by the owner or asked
 * to be (a pending request; it joins the feed once accepted), or be the owner; one already on the list is a 422.
 * All or nothing. The worker merges each member's recent statuses into the list's feed.
 */
export async function addToList(trx: Knex, list: ListRow, accountIds: string[]) {
  const ids = [...new Set(accountIds)]
  const valid = ids.map(parseId)
  const found: string[] = valid.every((id) => id)
    ? await trx('accounts')
        .whereIn('id', valid as string[])
        .pluck('id')
    : []
  if (found.length !== ids.length) throw new NotFound()
  for (const accountId of ids) {
    const key = { account_id: list.account_id, target_account_id: accountId }
    const follow = accountId === list.account_id ? undefined : await trx('follows').where(key).first('id')
    const request =
      accountId === list.account_id || follow
        ? undefined
        : await trx('follow_requests').where(key).first('id')
    if (accountId !== list.account_id && !follow && !request)
      throw new Invalid('Validation failed: Account must be a followed account')
    const [row] = await trx('list_accounts')
      .insert({
        list_id: list.id,
        account_id: accountId,
        follow_id: follow?.id ?? null,
        follow_request_id: request?.id ?? null,
      })
      .onConflict(['list_id', 'account_id'])
      .ignore()
      .returning('id')
    if (!row) throw new Invalid('Validation failed: Account is already on the list')
    await outbox.add(trx, {
      event: 'list_account.created',
      listAccountId: row.id,
      listId: list.id,
      accountId: list.account_id,
      targetAccountId: accountId,
    })
  }
}

/** Mastodon's RemoveAccountsFromListService: ids not on the list (or not ids at all) are ignored. */
export async function removeFromList(trx: Knex, list: ListRow, accountIds: string[]) {
  const ids = accountIds.map(parseId).filter((id): id is string => !!id)
  if (!ids.length) return
  const removed: { id: string; account_id: string }[] = await trx('list_accounts')
    .where({ list_id: list.id })
    .whereIn('account_id', ids)
    .delete()
    .returning(['id', 'account_id'])
  await outbox.add(
    trx,
    ...removed.map((r) => ({
      event: 'list_account.removed' as const,
      listAccountId: r.id,
      listId: list.id,
      accountId: list.account_id,
      targetAccountId: r.account_id,
    })),
  )
}
