import { z } from 'zod'
import { param } from '../params'

// The settings and invite pages answer a page, never Rails' 400 or 422: every value is checked by the handler
// (apps/accounts/src/auth), which shows what is wrong on the page.
const string = (description: string) => param.checkedByHandler({ type: 'string', description })
const csrf = string('The form’s CSRF token')

/** POST /invite/:code (the invite page's sign-up form) */
export const inviteSignUpParams = z.object({
  username: string('The new account’s username'),
  email: string('The e-mail address'),
  password: string('The password (8 to 72 characters)'),
  password_confirmation: string('The password again'),
  agreement: string('Accepts the server’s rules (“1”)'),
  csrf_token: csrf,
})

/** POST /settings/invites (the form) and POST /api/v1/invites (a Roost addition) */
export const createInviteParams = z.object({
  max_uses: param.checkedByHandler({
    type: 'integer',
    description: '1, 5, 10, 25, 50 or 100; empty: no limit',
  }),
  expires_in: param.checkedByHandler({
    type: 'integer',
    description: 'Seconds: 1800, 3600, 21600, 43200, 86400 or 604800; empty: never',
  }),
  comment: string('A note for oneself'),
  csrf_token: csrf,
})

/** POST /settings/invites/:id/expire, POST /settings/export, POST /settings/sign_out */
export const settingsFormParams = z.object({ csrf_token: csrf })

/** POST /settings/imports (a multipart form with the CSV as `data`) */
export const createImportParams = z.object({
  type: string('following, blocking, muting, domain_blocking, bookmarks or lists'),
  mode: string('merge or overwrite'),
  data: param.file('The CSV file, as Mastodon exports it (at most 20 MB and 20,000 rows)'),
  csrf_token: csrf,
})

/** POST /settings/delete */
export const deleteAccountParams = z.object({
  password: string('The account’s password'),
  code: string('With two-factor sign-in on: a code of the authenticator app, or a recovery code'),
  csrf_token: csrf,
})
