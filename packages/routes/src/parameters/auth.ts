import { z } from 'zod'
import { param } from '../params'

// The pages under /auth answer a page, never Rails' 400 or 422: every value is checked by the handler
// (apps/accounts/src/auth), which shows what is wrong on the page.
const string = (description: string) => param.checkedByHandler({ type: 'string', description })

/** GET /auth/confirmation (an HTML page) */
export const confirmationParams = z.object({
  confirmation_token: string('The token of the confirmation link sent by mail'),
})

/** POST /auth/password (the form of /auth/password/new) */
/** POST /auth/confirmation: the confirmation mail again, from a page (Mastodon's Devise confirmations#create). */
export const confirmationRequestParams = z.object({
  email: string('The account’s e-mail address'),
  csrf_token: string('The form’s CSRF token'),
})

export const passwordResetRequestParams = z.object({
  email: string('The account’s e-mail address'),
  csrf_token: string('The form’s CSRF token'),
})

/** GET /auth/password/edit (an HTML page) */
export const editPasswordParams = z.object({
  reset_password_token: string('The token of the reset link sent by mail'),
})

/** POST /auth/password/edit (its form) */
export const resetPasswordParams = z.object({
  reset_password_token: string('The token of the reset link sent by mail'),
  password: string('The new password (8 to 72 characters)'),
  password_confirmation: string('The new password again'),
  csrf_token: string('The form’s CSRF token'),
})

/** POST /api/v1/emails/confirmations */
export const resendConfirmationParams = z.object({
  email: param.text({ maxChars: 320 }),
})

/** POST /api/v1/user/password_change (a Roost addition, GoToSocial's call: docs/mastodon-compatibility.md) */
export const passwordChangeParams = z.object({
  old_password: string('The current password'),
  new_password: string('The new password (8 to 72 characters)'),
})
