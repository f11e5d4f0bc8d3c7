import type { Knex } from '@roost/db'
import { NotFound } from '@roost/errors'
import type { AccountRow } from '../entities/account'

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

/** Accounts by id, in no particular order. */
export async function accountsById(db: Knex, ids: string[]): Promise<Map<string, AccountRow>> {
  const unique = [...new Set(ids)]
  const rows: AccountRow[] = unique.length ? await db('accounts').whereIn('id', unique) : []
  return new Map(rows.map((r) => [r.id, r]))
}
