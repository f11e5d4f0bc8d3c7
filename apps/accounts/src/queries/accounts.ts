import type { Knex } from '@roost/db'
import type { AccountRow } from '../db/rows'

/**
 * The Account's `roles` (its highlighted role as `{id, name, color}`), read with the account by a subquery on
 * `users.role` so a custom role's name shows; see `renderAccount`.
 */
export const roleBadgeSql = `(SELECT json_build_object('id', r.id::text, 'name', r.name, 'color', r.color)
   FROM user_roles r WHERE r.key = users.role AND r.highlighted) AS role_badge`

/**
 * Accounts other people may see, with their owner's role: remote accounts, and local ones whose user is confirmed
 * and approved (Mastodon hides the others: they read as "Record not found"); suspended accounts are found.
 */
export function visibleAccounts(db: Knex): Knex.QueryBuilder<AccountRow, AccountRow[]> {
  return db('accounts')
    .leftJoin('users', 'users.account_id', 'accounts.id')
    .where((w) =>
      w
        .whereNotNull('accounts.domain')
        .orWhere((local) => local.whereNotNull('users.confirmed_at').where('users.approved', true)),
    )
    .select('accounts.*', 'users.role', db.raw(roleBadgeSql))
}

/** The local accounts other people may see (users who can sign in: counts, contacts). */
export const visibleLocalAccounts = (db: Knex) => visibleAccounts(db).whereNull('accounts.domain')

/** The visible local account with this username (any case), or undefined. */
export async function findLocalAccount(db: Knex, username: string): Promise<AccountRow | undefined> {
  return visibleLocalAccounts(db).whereRaw('lower(accounts.username) = lower(?)', [username]).first()
}

/** Accounts by id, in no particular order, with the accounts they moved to (`withMovedTo`). */
export async function accountsById(db: Knex, ids: string[]): Promise<Map<string, AccountRow>> {
  const unique = [...new Set(ids)]
  const rows: AccountRow[] = unique.length
    ? await withMovedTo(db, await db('accounts').whereIn('id', unique))
    : []
  return new Map(rows.map((r) => [r.id, r]))
}

/**
 * The rows, each that moved given the account it moved to as `moved_to` (the Account entity's `moved`;
 * docs/federation.md, "Moved accounts"); one query, and none when no row moved.
 */
export async function withMovedTo<T extends AccountRow | undefined>(db: Knex, rows: T[]): Promise<T[]> {
  const targets = [...new Set(rows.flatMap((r) => (r?.moved_to_account_id ? [r.moved_to_account_id] : [])))]
  if (!targets.length) return rows
  const found: AccountRow[] = await db('accounts').whereIn('id', targets)
  const byId = new Map(found.map((a) => [a.id, a]))
  return rows.map((r) =>
    r?.moved_to_account_id ? { ...r, moved_to: byId.get(r.moved_to_account_id) ?? null } : r,
  )
}
