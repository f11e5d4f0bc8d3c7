import { randomBytes } from 'node:crypto'
import type { Request, Response } from 'express'
import { Invalid } from '@roost/errors'
import {
  csrfOnlyParams,
  readParams,
  returnToParams,
  securityKeyParams,
  twoFactorCodeParams,
  twoFactorSetupParams,
} from '@roost/routes'
import { localDomainOf } from '../config'
import type { AccountsContext } from '../context'
import {
  beginEnrolment,
  confirmEnrolment,
  disableTwoFactor,
  regenerateRecoveryCodes,
  WRONG_CODE,
} from '../domain/two_factor'
import { mustEnrol } from '../oauth/authorize'
import { webauthnScript } from '../oauth/pages'
import { enrolmentUri } from '../two_factor/totp'
import { openOtpSecret, otpKey, sealOtpSecret } from '../two_factor/otp-secret'
import { listKeys, registerKey, registrationOptions, removeKey } from '../two_factor/webauthn'
import { codeThrottle, formCsrf, safeReturnTo, settingsCsrf, settingsHeaders, settingsUser } from './common'
import {
  newSecurityKeyPage,
  recoveryCodesPage,
  twoFactorOffPage,
  twoFactorOnPage,
  twoFactorSetupPage,
} from './pages'

/**
 * /settings/two_factor and /settings/security_keys (docs/security.md, "Two-factor sign-in"): enrol an authenticator
 * app (its secret as a QR code and as text, proved by a first code, then ten recovery codes shown once), make new
 * recovery codes or turn it off (each with a code; wrong codes count as failed sign-ins), add and remove security
 * keys once TOTP is on.
 */

async function showState(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  user: NonNullable<Awaited<ReturnType<typeof settingsUser>>>,
  o: { status?: number; error?: string; notice?: string; returnTo?: string } = {},
) {
  settingsHeaders(res)
  const csrf = settingsCsrf(ctx, req, res)
  if (!user.otp_enabled_at)
    return res
      .status(o.status ?? 200)
      .type('html')
      .send(twoFactorOffPage({ csrf, returnTo: o.returnTo, required: mustEnrol(ctx, user), error: o.error }))
  const keys = await listKeys(ctx, user.id)
  res
    .status(o.status ?? 200)
    .type('html')
    .send(
      twoFactorOnPage({
        csrf,
        codesLeft: user.otp_backup_codes.length,
        keys,
        error: o.error,
        notice: o.notice,
      }),
    )
}

/** GET /settings/two_factor */
export async function showTwoFactor(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  const { return_to } = readParams(req, returnToParams)
  await showState(ctx, req, res, user, { returnTo: safeReturnTo(return_to) })
}

async function setupPage(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  user: { username: string; otp_secret: string | null },
  returnTo: string | undefined,
  status = 200,
  error?: string,
) {
  // The pending secret as the page shows it: the column holds it sealed (two_factor/otp-secret.ts).
  const secret = openOtpSecret(user.otp_secret!, otpKey(ctx.config.OTP_SECRET))
  const { uri, qr } = await enrolmentUri(
    secret,
    `${user.username}@${localDomainOf(ctx.config)}`,
    ctx.config.INSTANCE_TITLE,
  )
  settingsHeaders(res)
  res
    .status(status)
    .type('html')
    .send(twoFactorSetupPage({ csrf: settingsCsrf(ctx, req, res), secret, uri, qr, returnTo, error }))
}

/** POST /settings/two_factor/setup — a new secret, shown as a QR code and as text. */
export async function setupTwoFactor(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  const p = readParams(req, twoFactorSetupParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/two_factor')) return
  let secret: string
  try {
    secret = await ctx.db.transaction((trx) => beginEnrolment(trx, otpKey(ctx.config.OTP_SECRET), user.id))
  } catch (err) {
    if (!(err instanceof Invalid)) throw err
    return showState(ctx, req, res, user, { status: 422, error: err.message })
  }
  await setupPage(
    ctx,
    req,
    res,
    { ...user, otp_secret: sealOtpSecret(secret, otpKey(ctx.config.OTP_SECRET)) },
    safeReturnTo(p.return_to),
  )
}

/** POST /settings/two_factor/confirm — the first code: on, and the recovery codes shown once. */
export async function confirmTwoFactor(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  const p = readParams(req, twoFactorCodeParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/two_factor')) return
  const returnTo = safeReturnTo(p.return_to)
  const throttle = await codeThrottle(ctx, req, res, user.id)
  if (!throttle) return
  let codes: string[]
  try {
    codes = await ctx.db.transaction((trx) =>
      confirmEnrolment(trx, otpKey(ctx.config.OTP_SECRET), user.id, p.code),
    )
  } catch (err) {
    if (!(err instanceof Invalid)) throw err
    await throttle.fail()
    if (!user.otp_secret || user.otp_enabled_at)
      return showState(ctx, req, res, user, { status: 422, error: err.message })
    return setupPage(ctx, req, res, user, returnTo, 422, err.message)
  }
  settingsHeaders(res)
  res.type('html').send(recoveryCodesPage({ codes, returnTo, heading: 'Two-factor authentication is on' }))
}

/** POST /settings/two_factor/disable — with a code (or a recovery code). */
export async function disableTwoFactorPage(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  const p = readParams(req, twoFactorCodeParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/two_factor')) return
  const throttle = await codeThrottle(ctx, req, res, user.id)
  if (!throttle) return
  try {
    await ctx.db.transaction((trx) => disableTwoFactor(trx, otpKey(ctx.config.OTP_SECRET), user.id, p.code))
  } catch (err) {
    if (!(err instanceof Invalid)) throw err
    await throttle.fail()
    return showState(ctx, req, res, user, { status: 422, error: WRONG_CODE })
  }
  const after = await settingsUser(ctx, req, res)
  if (after) await showState(ctx, req, res, after, { notice: 'Two-factor authentication is off.' })
}

/** POST /settings/two_factor/recovery_codes — new codes, with a code; the old ones stop working. */
export async function newRecoveryCodes(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  const p = readParams(req, twoFactorCodeParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/two_factor')) return
  const throttle = await codeThrottle(ctx, req, res, user.id)
  if (!throttle) return
  let codes: string[]
  try {
    codes = await ctx.db.transaction((trx) =>
      regenerateRecoveryCodes(trx, otpKey(ctx.config.OTP_SECRET), user.id, p.code),
    )
  } catch (err) {
    if (!(err instanceof Invalid)) throw err
    await throttle.fail()
    return showState(ctx, req, res, user, { status: 422, error: WRONG_CODE })
  }
  settingsHeaders(res)
  res.type('html').send(recoveryCodesPage({ codes, heading: 'New recovery codes' }))
}

async function keyPage(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  user: { id: string; username: string },
  status = 200,
  error?: string,
) {
  const options = await registrationOptions(ctx, user.id, user.username)
  const nonce = randomBytes(16).toString('base64')
  settingsHeaders(res, nonce)
  res
    .status(status)
    .type('html')
    .send(
      newSecurityKeyPage({
        csrf: settingsCsrf(ctx, req, res),
        options,
        script: webauthnScript(nonce),
        error,
      }),
    )
}

/** GET /settings/security_keys/new — only once TOTP is on (as Mastodon: keys come on top of it). */
export async function newSecurityKey(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  if (!user.otp_enabled_at)
    return showState(ctx, req, res, user, {
      status: 422,
      error: 'Set up an authenticator app first: security keys come on top of it.',
    })
  await keyPage(ctx, req, res, user)
}

/** POST /settings/security_keys — the browser's answer: stored when it verifies. */
export async function addSecurityKey(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  const p = readParams(req, securityKeyParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/security_keys/new')) return
  if (!user.otp_enabled_at)
    return showState(ctx, req, res, user, { status: 422, error: 'Set up an authenticator app first.' })
  const nickname =
    typeof p.nickname === 'string' && p.nickname.trim() ? p.nickname.trim().slice(0, 100) : 'Security key'
  try {
    await registerKey(ctx, user.id, p.credential, nickname)
  } catch (err) {
    if (!(err instanceof Invalid)) throw err
    return keyPage(ctx, req, res, user, 422, err.message)
  }
  await showState(ctx, req, res, user, { notice: `The security key “${nickname}” was added.` })
}

/** POST /settings/security_keys/:id/delete */
export async function deleteSecurityKey(ctx: AccountsContext, req: Request, res: Response) {
  const user = await settingsUser(ctx, req, res)
  if (!user) return
  const p = readParams(req, csrfOnlyParams)
  if (!formCsrf(ctx, req, res, p.csrf_token, '/settings/two_factor')) return
  const removed = await removeKey(ctx, user.id, String(req.params.id))
  if (!removed) return showState(ctx, req, res, user, { status: 404, error: 'No such security key.' })
  await showState(ctx, req, res, user, { notice: 'The security key was removed.' })
}
