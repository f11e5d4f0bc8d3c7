import type { Knex } from '@roost/db'
import { NotFound } from '@roost/errors'
import type { AccountRow } from '../db/rows'
import { visibleAccounts } from '../queries/accounts'

const MAX_ID = 9223372036854775807n

/** A record id from a path or parameter: digits that fit a bigint, else undefined (which reads as "not found"). */
export function parseId(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value)
  if (typeof value !== 'string' || !/^\d{1,19}$/.test(value)) return undefined
  return BigInt(value) <= MAX_ID ? value : undefined
}

/** Mastodon's `Account.find(id)`: unknown → 404 "Record not found". Suspended accounts are found. */
export async function findAccount(db: Knex, id: unknown): Promise<AccountRow> {
  const accountId = parseId(id)
  const row: AccountRow | undefined = accountId
    ? await db('accounts').where({ id: accountId }).first()
    : undefined
  if (!row) throw new NotFound()
  return row
}

/** One visible account by id (`visibleAccounts`), or undefined. */
export async function findVisibleAccount(db: Knex, id: unknown): Promise<AccountRow | undefined> {
  const accountId = parseId(id)
  return accountId ? visibleAccounts(db).where('accounts.id', accountId).first() : undefined
}
