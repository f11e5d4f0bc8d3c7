import { escape, hidden, layout } from '../oauth/pages'
import { settingsLayout } from './frame'

/**
 * The sign-in server's settings pages (docs/security.md, "Two-factor sign-in", "Sessions and apps"): server-rendered
 * in the web app's frame (./frame.ts). Every form carries its CSRF token.
 */

const alert = (error?: string) => (error ? `<p class="error" role="alert">${escape(error)}</p>` : '')
const notice = (text?: string) => (text ? `<p role="status">${escape(text)}</p>` : '')

const form = (action: string, csrf: string, inner: string, extra: Record<string, string | undefined> = {}) =>
  `<form method="post" action="${escape(action)}">${hidden({ ...extra, csrf_token: csrf })}${inner}</form>`

const codeField = (id: string, label = 'Code from your authenticator app, or a recovery code') =>
  `<label for="${id}">${escape(label)}</label><input id="${id}" name="code" type="text" autocomplete="one-time-code" required>`

export function twoFactorOffPage(o: { csrf: string; returnTo?: string; required: boolean; error?: string }) {
  return settingsLayout(
    '/settings/two_factor',
    'Two-factor authentication',
    `${alert(o.error)}${
      o.required
        ? '<p class="error" role="alert">Your role on this server requires two-factor authentication: set it up to continue.</p>'
        : ''
    }<p>Two-factor authentication is <strong id="state">off</strong>. With it, signing in asks for a code of an authenticator app after your password.</p>
${form('/settings/two_factor/setup', o.csrf, '<button type="submit">Set up two-factor authentication</button>', { return_to: o.returnTo })}`,
  )
}

export function twoFactorSetupPage(o: {
  csrf: string
  secret: string
  uri: string
  qr: string
  returnTo?: string
  error?: string
}) {
  return settingsLayout(
    '/settings/two_factor',
    'Set up two-factor authentication',
    `${alert(o.error)}<p>Scan this QR code with your authenticator app (or type the key in by hand), then enter the code it shows.</p>
<p><img id="qr" src="${escape(o.qr)}" alt="QR code of ${escape(o.uri)}" width="220" height="220"></p>
<p>Key: <code id="secret">${escape(o.secret)}</code></p>
${form(
  '/settings/two_factor/confirm',
  o.csrf,
  `<label for="code">Code from your authenticator app</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Enable</button>`,
  { return_to: o.returnTo },
)}`,
  )
}

export function recoveryCodesPage(o: { codes: string[]; returnTo?: string; heading: string }) {
  return settingsLayout(
    '/settings/two_factor',
    o.heading,
    `<p role="status">Keep these recovery codes somewhere safe: each lets you sign in once if you lose your authenticator app. They are shown only now.</p>
<ul id="recovery-codes">${o.codes.map((c) => `<li><code>${escape(c)}</code></li>`).join('')}</ul>
<p><a href="${escape(o.returnTo ?? '/settings/two_factor')}">Continue</a></p>`,
  )
}

export function twoFactorOnPage(o: {
  csrf: string
  codesLeft: number
  keys: { id: string; nickname: string; created_at: Date; last_used_at: Date | null }[]
  error?: string
  notice?: string
}) {
  return settingsLayout(
    '/settings/two_factor',
    'Two-factor authentication',
    `${alert(o.error)}${notice(o.notice)}<p>Two-factor authentication is <strong id="state">on</strong>. Recovery codes left: <span id="codes-left">${o.codesLeft}</span>.</p>
<h2>Security keys</h2>
<ul id="security-keys">${o.keys
      .map(
        (k) =>
          `<li>${escape(k.nickname)} (added ${escape(k.created_at.toISOString().slice(0, 10))}${k.last_used_at ? `, last used ${escape(k.last_used_at.toISOString().slice(0, 10))}` : ''}) ${form(`/settings/security_keys/${k.id}/delete`, o.csrf, '<button type="submit" class="secondary">Remove</button>')}</li>`,
      )
      .join('')}</ul>
<p><a href="/settings/security_keys/new">Add a security key</a></p>
<h2>New recovery codes</h2>
${form('/settings/two_factor/recovery_codes', o.csrf, `${codeField('recovery-code', 'Code from your authenticator app')}<button type="submit">Make new recovery codes</button>`)}
<h2>Turn off</h2>
${form('/settings/two_factor/disable', o.csrf, `${codeField('disable-code')}<button type="submit">Disable two-factor authentication</button>`)}`,
  )
}

export function newSecurityKeyPage(o: { csrf: string; options: unknown; script: string; error?: string }) {
  return settingsLayout(
    '/settings/two_factor',
    'Add a security key',
    `${alert(o.error)}<form method="post" action="/settings/security_keys">${hidden({ csrf_token: o.csrf })}<input type="hidden" name="credential" value="">
<label for="nickname">Name of the key</label><input id="nickname" name="nickname" type="text" maxlength="100" value="Security key" required>
<button type="button" id="webauthn" data-mode="create" data-options="${escape(JSON.stringify(o.options))}">Add security key</button>
<p class="error" id="webauthn-error" role="alert"></p></form>${o.script}`,
  )
}

export interface AppSession {
  application_id: string
  name: string
  website: string | null
  scopes: string[]
  created_at: Date
  last_used_at: Date | null
}

const day = (d: Date | null) =>
  d ? new Date(d).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : 'never'

export function sessionsPage(o: { csrf: string; apps: AppSession[]; notice?: string; error?: string }) {
  return settingsLayout(
    '/settings/sessions',
    'Apps and sessions',
    `${alert(o.error)}${notice(o.notice)}<p>These applications can use your account. Revoking one signs it out at once and drops its push notifications.</p>
${
  o.apps.length
    ? `<table id="apps"><thead><tr><th>App</th><th>Permissions</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>${o.apps
        .map(
          (a) =>
            `<tr data-application-id="${escape(a.application_id)}"><td>${escape(a.name)}</td><td>${a.scopes.map((s) => `<code>${escape(s)}</code>`).join(' ')}</td><td>${escape(day(a.created_at))}</td><td>${escape(day(a.last_used_at))}</td><td>${form('/settings/sessions/revoke', o.csrf, `<button type="submit">Revoke</button>`, { application_id: a.application_id })}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p id="apps">No application holds a token for your account.</p>'
}`,
  )
}

export function passwordPage(o: { csrf?: string; error?: string; notice?: string }) {
  return settingsLayout(
    '/settings/password',
    'Password',
    `${alert(o.error)}${notice(o.notice)}${
      o.csrf
        ? `<p>Changing your password signs out every app and browser that used the old one.</p>
${form(
  '/settings/password',
  o.csrf,
  `<label for="current_password">Current password</label><input id="current_password" name="current_password" type="password" autocomplete="current-password" required>
<label for="password">New password (8 to 72 characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="72" required>
<label for="password_confirmation">The new password again</label><input id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" required>
<button type="submit">Change my password</button>`,
)}`
        : '<p><a href="/settings/password">Change it again</a></p>'
    }`,
  )
}

export function emailPage(o: {
  csrf: string
  email: string
  unconfirmed?: string | null
  error?: string
  notice?: string
}) {
  return settingsLayout(
    '/settings/email',
    'E-mail address',
    `${alert(o.error)}${notice(o.notice)}<p>Your address: <strong id="email">${escape(o.email)}</strong></p>
${o.unconfirmed ? `<p id="pending">Waiting for confirmation: <strong>${escape(o.unconfirmed)}</strong> (see the link sent to it)</p>` : ''}
${form(
  '/settings/email',
  o.csrf,
  `<label for="new_email">New e-mail address</label><input id="new_email" name="email" type="email" autocomplete="email" maxlength="320" required>
<label for="current_password">Current password</label><input id="current_password" name="current_password" type="password" autocomplete="current-password" required>
<button type="submit">Change my e-mail address</button>`,
)}`,
  )
}

export function signInFormPage(o: { csrf: string; returnTo?: string; error?: string }) {
  return layout(
    'Sign in',
    `<h1>Sign in</h1>${alert(o.error)}
<form method="post" action="/auth/sign_in">
${hidden({ action: 'sign_in', return_to: o.returnTo, csrf_token: o.csrf })}
<label for="email">E-mail address or username</label><input id="email" name="email" type="text" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  )
}
