import { escape, hidden, layout } from '../oauth/pages'

/** The pages of the links Roost e-mails: the OAuth pages' look (oauth/pages.ts), no scripts. */

const alert = (error?: string) => (error ? `<p class="error" role="alert">${escape(error)}</p>` : '')

/** /auth/password/new: ask for a reset link. */
export function passwordNewPage(o: { csrf: string; error?: string }) {
  return layout(
    'Forgot your password?',
    `<h1>Forgot your password?</h1>
${alert(o.error)}
<p>Give the e-mail address of your account: a link to choose a new password will be sent to it.</p>
<form method="post" action="/auth/password">
${hidden({ csrf_token: o.csrf })}
<label for="email">E-mail address</label><input id="email" name="email" type="email" autocomplete="email" required>
<button type="submit">Send me a link</button>
</form>`,
  )
}

/** /auth/confirmation/new: ask for the confirmation mail again, without an app. */
export function confirmationNewPage(o: { csrf: string; error?: string }) {
  return layout(
    'Resend the confirmation mail',
    `<h1>Didn’t get the confirmation mail?</h1>
${alert(o.error)}
<p>Give the e-mail address you signed up with: a new link to confirm it will be sent to it.</p>
<form method="post" action="/auth/confirmation">
${hidden({ csrf_token: o.csrf })}
<label for="email">E-mail address</label><input id="email" name="email" type="email" autocomplete="email" required>
<button type="submit">Send it again</button>
</form>`,
  )
}

/** After asking for the confirmation mail: the same answer whether the address waits for one or not. */
export function confirmationSentPage() {
  return layout(
    'Check your mail',
    `<h1>Check your mail</h1><p role="status">If an account with this address waits for its confirmation, a new link is on its way.</p>`,
  )
}

/** After asking: the same answer whether the address exists or not. */
export function passwordSentPage() {
  return layout(
    'Check your mail',
    `<h1>Check your mail</h1><p role="status">If an account uses this address, a link to reset its password is on its way. It works once, for 6 hours.</p>`,
  )
}

/** /auth/password/edit: choose the new password. */
export function passwordEditPage(o: { token: string; csrf: string; error?: string }) {
  return layout(
    'Choose a new password',
    `<h1>Choose a new password</h1>
${alert(o.error)}
<form method="post" action="/auth/password/edit">
${hidden({ reset_password_token: o.token, csrf_token: o.csrf })}
<label for="password">New password (8 to 72 characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="72" required>
<label for="password_confirmation">The new password again</label><input id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" required>
<button type="submit">Change my password</button>
</form>`,
  )
}

export function passwordChangedPage() {
  return layout(
    'Password changed',
    `<h1>Your password has been changed</h1><p role="status">Every app signed in to your account was signed out. Sign in again with the new password.</p>`,
  )
}

export function confirmedPage(username: string) {
  return layout(
    'Address confirmed',
    `<h1>Your e-mail address is confirmed</h1><p role="status">Welcome, @${escape(username)}: your account can now be used from any app.</p>`,
  )
}

/** A link that does not work (invalid, used, expired), a form sent without its CSRF token, too many attempts. */
export function problemPage(title: string, message: string, retry?: { href: string; label: string }) {
  return layout(
    title,
    `<h1>${escape(title)}</h1><p class="error" role="alert">${escape(message)}</p>${
      retry ? `<p><a href="${escape(retry.href)}">${escape(retry.label)}</a></p>` : ''
    }`,
  )
}
