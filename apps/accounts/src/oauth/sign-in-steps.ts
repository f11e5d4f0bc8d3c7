import type { Request, Response } from 'express'
import { HttpError } from '@roost/service'
import type { AccountsContext } from '../context'
import { recordSignIn } from '../domain/sign_ins'
import { checkCode, WRONG_CODE } from '../domain/two_factor'
import { otpKey } from '../two_factor/otp-secret'
import { hasSecurityKeys, signInOptions, verifyKey, WRONG_KEY } from '../two_factor/webauthn'
import { signInWithPassword } from '../users/sign-in'
import { endPendingSignIn, pendingSignInUserId, startPendingSignIn, startSession } from './session'
import { guardCredentials } from './throttle'

/**
 * The steps of signing in on a page (the OAuth pages and /auth/sign_in, docs/security.md, "Two-factor sign-in"):
 * the password, then for a user with two-factor sign-in a code or a security key. Both steps are throttled as
 * failed sign-ins (oauth/throttle.ts): wrong passwords per login name, wrong codes per user, both per address.
 */
export type StepOutcome =
  | { kind: 'throttled' }
  | { kind: 'wrong'; error: string }
  /** The password was right; the second factor is asked for (the pending cookie is set). */
  | { kind: 'second_factor'; userId: string; keyOptions?: unknown }
  | { kind: 'signed_in'; userId: string }
  /** The second step without a pending sign-in (expired, or never begun). */
  | { kind: 'expired' }

const secure = (ctx: AccountsContext) => ctx.config.PUBLIC_URL.startsWith('https:')

async function guard(ctx: AccountsContext, req: Request, res: Response, subjects: (string | undefined)[]) {
  return guardCredentials(ctx, req, res, subjects).catch((err) => {
    if (err instanceof HttpError && err.status === 429) return undefined
    throw err
  })
}

/** Signs the user in: the session cookie, the pending cookie gone, the sign-in recorded (new sign-in mail). */
async function complete(ctx: AccountsContext, req: Request, res: Response, userId: string) {
  startSession(res, ctx.config.SESSION_SECRET, userId, secure(ctx))
  if (pendingSignInUserId(req, ctx.config.SESSION_SECRET)) endPendingSignIn(res)
  await recordSignIn(ctx, req, userId)
  return { kind: 'signed_in', userId } as const
}

/** What the page shows for the second step: whether the user has security keys, and their options. */
export async function secondFactorOptions(ctx: AccountsContext, userId: string) {
  return (await hasSecurityKeys(ctx, userId)) ? signInOptions(ctx, userId) : undefined
}

export async function passwordStep(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  login: unknown,
  password: unknown,
): Promise<StepOutcome> {
  const name = typeof login === 'string' ? login : undefined
  const throttle = await guard(ctx, req, res, [name && `login:${name}`])
  if (!throttle) return { kind: 'throttled' }
  const user =
    name && typeof password === 'string' ? await signInWithPassword(ctx, name, password) : undefined
  if (!user) {
    await throttle.fail()
    return { kind: 'wrong', error: 'Invalid e-mail address or password.' }
  }
  if (!user.otp_enabled_at) return complete(ctx, req, res, user.id)
  startPendingSignIn(res, ctx.config.SESSION_SECRET, user.id, secure(ctx))
  return { kind: 'second_factor', userId: user.id, keyOptions: await secondFactorOptions(ctx, user.id) }
}

/** The second step: `code` (TOTP or recovery code) or `credential` (a security key's answer, JSON). */
export async function secondFactorStep(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  p: { code?: unknown; credential?: unknown },
): Promise<StepOutcome> {
  const userId = pendingSignInUserId(req, ctx.config.SESSION_SECRET)
  if (!userId) return { kind: 'expired' }
  const throttle = await guard(ctx, req, res, [`two-factor:${userId}`])
  if (!throttle) return { kind: 'throttled' }
  const byKey = typeof p.credential === 'string' && p.credential !== ''
  const ok = byKey
    ? await verifyKey(ctx, userId, p.credential)
    : !!(await ctx.db.transaction((trx) => checkCode(trx, otpKey(ctx.config.OTP_SECRET), userId, p.code)))
  if (!ok) {
    await throttle.fail()
    return { kind: 'wrong', error: byKey ? WRONG_KEY : WRONG_CODE }
  }
  return complete(ctx, req, res, userId)
}
