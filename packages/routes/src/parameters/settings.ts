import { z } from 'zod'
import { param } from '../params'

// The settings pages and /auth/sign_in answer a page, never Rails' 400 or 422: every value is checked by the
// handler (apps/accounts/src/settings), which shows what is wrong on the page.
const string = (description: string) => param.checkedByHandler({ type: 'string', description })
const csrf = string('The form’s CSRF token')
const returnTo = string('The page to go back to afterwards (a settings or authorization page of this server)')

/** GET /auth/sign_in, GET /settings/two_factor */
export const returnToParams = z.object({ return_to: returnTo })

/** POST /auth/sign_in */
export const settingsSignInParams = z.object({
  action: string('sign_in or two_factor'),
  email: string('Sign-in e-mail address or username'),
  password: string('Sign-in password'),
  code: string('two_factor: a code of the authenticator app, or a recovery code'),
  credential: string('two_factor: a security key’s answer (WebAuthn, JSON)'),
  return_to: returnTo,
  csrf_token: csrf,
})

/** POST /settings/two_factor/setup */
export const twoFactorSetupParams = z.object({ return_to: returnTo, csrf_token: csrf })

/** POST /settings/two_factor/confirm, /disable, /recovery_codes */
export const twoFactorCodeParams = z.object({
  code: string('A code of the authenticator app (or, to disable, a recovery code)'),
  return_to: returnTo,
  csrf_token: csrf,
})

/** POST /settings/security_keys */
export const securityKeyParams = z.object({
  credential: string('The security key’s answer (WebAuthn, JSON)'),
  nickname: string('A name for the key'),
  csrf_token: csrf,
})

/** POST /settings/security_keys/:id/delete */
export const csrfOnlyParams = z.object({ csrf_token: csrf })

/** POST /settings/sessions/revoke */
export const revokeApplicationParams = z.object({
  application_id: string('The application whose tokens are revoked'),
  csrf_token: csrf,
})

/** POST /settings/email */
export const emailChangeParams = z.object({
  email: string('The new e-mail address'),
  current_password: string('The current password'),
  csrf_token: csrf,
})

/** POST /settings/password */
export const settingsPasswordParams = z.object({
  current_password: string('The current password'),
  password: string('The new password (8 to 72 characters)'),
  password_confirmation: string('The new password again'),
  csrf_token: csrf,
})
