import { randomInt } from 'node:crypto'
import type { Knex } from '@roost/db'
import { Forbidden, Gone, Invalid, NotFound } from '@roost/errors'
import type { InviteRow } from '../db/rows'
import { ROLES } from './moderation'
import type { Role } from './moderation'

/**
 * Invite links, /invite/:code (docs/security.md, "Invites"), as Mastodon's Invite: a code of 8 letters and digits,
 * an optional maximum of uses and an optional expiry. A usable invite lets its holder sign up while registrations
 * are closed, and skips approval when they need it (Mastodon's `valid_invitation?`).
 */

/** Mastodon's Invite::EXPIRATION_OPTIONS (seconds): 30 minutes, 1, 6 and 12 hours, a day, a week. */
export const INVITE_EXPIRY_OPTIONS = [1800, 3600, 21600, 43200, 86400, 604800] as const
/** Mastodon's choices of a maximum of uses (the form's select); null is "no limit". */
export const INVITE_MAX_USES_OPTIONS = [1, 5, 10, 25, 50, 100] as const
const CODE_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
/** A code as made here (8 characters); anything else in a URL is simply unknown. */
export const INVITE_CODE = /^[A-Za-z0-9]{8}$/
/** How many live invites one user may hold at once: a bound on what a spammer with an account can make. */
export const MAX_ACTIVE_INVITES = 100

export function mayInvite(role: string, minRole: Role): boolean {
  const rank = (r: string) => ROLES.indexOf(r as Role)
  return role === 'admin' || role === 'owner' || (rank(role) >= 0 && rank(role) >= rank(minRole))
}

const newCode = () => Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('')

export interface NewInvite {
  maxUses: number | null
  /** Seconds from now; null: never expires. */
  expiresIn: number | null
  comment: string | null
}

/** Reads an invite's settings as the form and the API send them; Invalid (422) on anything else. */
export function readNewInvite(p: { max_uses?: unknown; expires_in?: unknown; comment?: unknown }): NewInvite {
  const blank = (v: unknown) => v === undefined || v === null || v === ''
  const maxUses = blank(p.max_uses) ? null : Number(p.max_uses)
  if (maxUses !== null && !(INVITE_MAX_USES_OPTIONS as readonly number[]).includes(maxUses))
    throw new Invalid(`Validation failed: Max uses must be one of ${INVITE_MAX_USES_OPTIONS.join(', ')}`)
  const expiresIn = blank(p.expires_in) ? null : Number(p.expires_in)
  if (expiresIn !== null && !(INVITE_EXPIRY_OPTIONS as readonly number[]).includes(expiresIn))
    throw new Invalid(
      `Validation failed: Expires in must be one of ${INVITE_EXPIRY_OPTIONS.join(', ')} seconds`,
    )
  const comment = typeof p.comment === 'string' && p.comment.trim() ? p.comment.trim() : null
  if (p.comment !== undefined && p.comment !== null && typeof p.comment !== 'string')
    throw new Invalid('Validation failed: Comment must be text')
  if (comment && comment.length > 420)
    throw new Invalid('Validation failed: Comment is too long (maximum is 420 characters)')
  return { maxUses, expiresIn, comment }
}

const live = (q: Knex.QueryBuilder) =>
  q
    .where((w) => w.whereNull('invites.expires_at').orWhere('invites.expires_at', '>', new Date()))
    .where((w) => w.whereNull('invites.max_uses').orWhereRaw('invites.uses < invites.max_uses'))

/** Makes an invite for `user`, who must be allowed to (`mayInvite`), in the caller's transaction. */
export async function createInvite(
  trx: Knex,
  user: { id: string; role: string },
  minRole: Role,
  invite: NewInvite,
): Promise<InviteRow> {
  if (!mayInvite(user.role, minRole)) throw new Forbidden('You are not allowed to invite people')
  const [{ n }] = await live(trx('invites').where({ user_id: user.id })).count({ n: '*' })
  if (Number(n) >= MAX_ACTIVE_INVITES)
    throw new Invalid(`Validation failed: You may have at most ${MAX_ACTIVE_INVITES} usable invites`)
  for (;;) {
    const [row] = await trx('invites')
      .insert({
        user_id: user.id,
        code: newCode(),
        max_uses: invite.maxUses,
        expires_at: invite.expiresIn ? new Date(Date.now() + invite.expiresIn * 1000) : null,
        comment: invite.comment,
      })
      .onConflict('code')
      .ignore()
      .returning('*')
    // 62^8 codes: a clash is very rare, and the next draw settles it.
    if (row) return row as InviteRow
  }
}

/** The user's invites, newest first (Mastodon lists only the usable ones; here the spent ones follow). */
export async function listInvites(db: Knex, userId: string): Promise<InviteRow[]> {
  return db('invites').where({ user_id: userId }).orderBy('id', 'desc').limit(200)
}

/** Mastodon's "expire": the invite stops working now. Only its maker's. */
export async function expireInvite(trx: Knex, userId: string, id: string): Promise<InviteRow> {
  if (!/^\d{1,19}$/.test(id)) throw new NotFound()
  const [row] = await trx('invites')
    .where({ id, user_id: userId })
    .update({ expires_at: trx.raw('least(coalesce(expires_at, now()), now())') })
    .returning('*')
  if (!row) throw new NotFound()
  return row as InviteRow
}

export const inviteUsable = (i: Pick<InviteRow, 'max_uses' | 'uses' | 'expires_at'>, now = new Date()) =>
  (i.max_uses === null || i.uses < i.max_uses) && (!i.expires_at || i.expires_at > now)

/**
 * The invite of a code if it can still be used: NotFound for an unknown code, Gone for an expired or used-up one,
 * or one whose maker may no longer sign in (Mastodon's `user&.functional?`).
 */
export async function usableInvite(db: Knex, code: unknown): Promise<InviteRow> {
  if (typeof code !== 'string' || !INVITE_CODE.test(code)) throw new NotFound('This invite link is unknown')
  const row: (InviteRow & { suspended_at: Date | null; disabled: boolean }) | undefined = await db('invites')
    .join('users', 'users.id', 'invites.user_id')
    .join('accounts', 'accounts.id', 'users.account_id')
    .where('invites.code', code)
    .select('invites.*', 'accounts.suspended_at', 'users.disabled')
    .first()
  if (!row) throw new NotFound('This invite link is unknown')
  if (row.suspended_at || row.disabled) throw new Gone('This invite link no longer works')
  if (row.expires_at && row.expires_at <= new Date()) throw new Gone('This invite link has expired')
  if (!inviteUsable(row)) throw new Gone('This invite link has been used as many times as it may')
  return row
}

/**
 * Counts one use of the invite, in the sign-up's transaction, if it is still usable at that moment: two sign-ups
 * racing for the last use of an invite cannot both have it (the row's update is the test). Gone otherwise.
 */
export async function useInvite(trx: Knex, inviteId: string): Promise<void> {
  const updated = await live(trx('invites').where({ id: inviteId })).increment('uses', 1)
  if (!updated) throw new Gone('This invite link has been used as many times as it may, or has expired')
}
