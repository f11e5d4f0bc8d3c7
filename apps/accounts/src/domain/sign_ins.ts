import type { Request } from 'express'
import type { AccountsContext } from '../context'
import { clientAddress } from '../ip_blocks/rules'
import * as outbox from '../outbox/outbox'

/**
 * Where users sign in from (docs/security.md, "Sessions and apps"): each sign-in on a page is recorded with its
 * address and browser. A sign-in from an address the user has not signed in from within NEW_SIGN_IN_DAYS, when
 * they had signed in before and have no second factor, mails them (Mastodon's suspicious_sign_in: with two-factor
 * sign-in on, a password alone cannot open the account, so Mastodon does not mail then either).
 */
export const NEW_SIGN_IN_DAYS = 30
const DAY_MS = 24 * 3600 * 1000

export async function recordSignIn(ctx: AccountsContext, req: Request, userId: string) {
  const ip = clientAddress(ctx, req) ?? 'unknown'
  const userAgent = String(req.headers['user-agent'] ?? '').slice(0, 512)
  await ctx.db.transaction(async (trx) => {
    const user = await trx('users').where({ id: userId }).forUpdate().first('otp_enabled_at')
    const before = await trx('user_sign_ins').where({ user_id: userId }).first('id')
    const seen = await trx('user_sign_ins')
      .where({ user_id: userId, ip })
      .where('created_at', '>', new Date(Date.now() - NEW_SIGN_IN_DAYS * DAY_MS))
      .first('id')
    const [row] = await trx('user_sign_ins')
      .insert({ user_id: userId, ip: ip.slice(0, 64), user_agent: userAgent })
      .returning('id')
    if (before && !seen && !user?.otp_enabled_at)
      await outbox.add(trx, { event: 'mail.suspicious_sign_in', userId, signInId: String(row.id) })
  })
}
