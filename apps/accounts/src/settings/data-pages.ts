import { escape, hidden, layout } from '../oauth/pages'
import type { ArchiveRow, ImportRow, InviteRow } from '../db/rows'
import { INVITE_EXPIRY_OPTIONS, INVITE_MAX_USES_OPTIONS, inviteUsable } from '../domain/invites'
import { settingsLayout } from './frame'

/**
 * The pages of invites, one's data and leaving (docs/security.md, "Invites" and "Your data"): the signed-in ones in
 * the web app's frame (./frame.ts), the invite and goodbye pages in the OAuth pages' look (oauth/pages.ts); no
 * scripts, every form with its CSRF token.
 */

const alert = (error?: string) => (error ? `<p class="error" role="alert">${escape(error)}</p>` : '')
const notice = (text?: string) => (text ? `<p role="status">${escape(text)}</p>` : '')
const when = (d: Date | null) => (d ? escape(new Date(d).toISOString().replace('T', ' ').slice(0, 16)) : '')

const EXPIRY_LABELS: Record<number, string> = {
  1800: '30 minutes',
  3600: '1 hour',
  21600: '6 hours',
  43200: '12 hours',
  86400: '1 day',
  604800: '1 week',
}

export function invitesPage(o: {
  csrf: string
  base: string
  invites: InviteRow[]
  allowed: boolean
  error?: string
  notice?: string
}) {
  const rows = o.invites
    .map((i) => {
      const usable = inviteUsable(i)
      return `<li data-code="${escape(i.code)}"><code>${escape(`${o.base}/invite/${i.code}`)}</code><br>
${i.uses} use${i.uses === 1 ? '' : 's'}${i.max_uses !== null ? ` of ${i.max_uses}` : ''}; ${
        i.expires_at ? `${usable ? 'expires' : 'expired'} ${when(i.expires_at)} UTC` : 'never expires'
      }${usable ? '' : ' (no longer usable)'}${i.comment ? ` — ${escape(i.comment)}` : ''}
${
  usable
    ? `<form method="post" action="/settings/invites/${escape(i.id)}/expire">${hidden({ csrf_token: o.csrf })}<button type="submit" class="secondary">Expire</button></form>`
    : ''
}</li>`
    })
    .join('')
  const form = o.allowed
    ? `<form method="post" action="/settings/invites">
${hidden({ csrf_token: o.csrf })}
<label for="max_uses">Maximum number of uses</label><select id="max_uses" name="max_uses"><option value="">No limit</option>${INVITE_MAX_USES_OPTIONS.map((n) => `<option value="${n}">${n} use${n === 1 ? '' : 's'}</option>`).join('')}</select>
<label for="expires_in">Expire after</label><select id="expires_in" name="expires_in"><option value="">Never</option>${INVITE_EXPIRY_OPTIONS.map((s) => `<option value="${s}">${EXPIRY_LABELS[s]}</option>`).join('')}</select>
<label for="comment">Note (only you see it)</label><input id="comment" name="comment" type="text" maxlength="420">
<button type="submit">Generate invite link</button>
</form>`
    : `<p>Only ${'staff'} may make invite links on this server.</p>`
  return settingsLayout(
    '/settings/invites',
    'Invites',
    `${alert(o.error)}${notice(o.notice)}
${form}
<h2>Your invites</h2>${rows ? `<ul id="invites">${rows}</ul>` : '<p>None yet.</p>'}`,
    'Invite people',
  )
}

export function inviteSignUpPage(o: {
  csrf: string
  code: string
  inviter: string
  values?: { username?: string; email?: string }
  error?: string
}) {
  const v = o.values ?? {}
  return layout(
    'Join',
    `<h1>@${escape(o.inviter)} invites you</h1>
${alert(o.error)}
<form method="post" action="/invite/${escape(o.code)}">
${hidden({ csrf_token: o.csrf })}
<label for="username">Username</label><input id="username" name="username" type="text" autocomplete="username" maxlength="30" value="${escape(v.username ?? '')}" required>
<label for="email">E-mail address</label><input id="email" name="email" type="email" autocomplete="email" value="${escape(v.email ?? '')}" required>
<label for="password">Password (8 to 72 characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="72" required>
<label for="password_confirmation">The password again</label><input id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" required>
<label><input id="agreement" name="agreement" type="checkbox" value="1" required> I accept the server’s rules</label>
<button type="submit">Sign up</button>
</form>`,
  )
}

export function welcomePage(o: { username: string; confirm: boolean }) {
  return layout(
    'Welcome',
    `<h1>Welcome, @${escape(o.username)}</h1><p role="status">Your account is ready.${
      o.confirm ? ' Confirm your e-mail address with the link sent to it, then' : ''
    } Sign in from any app with your e-mail address and password.</p>`,
  )
}

const ARCHIVE_STATES = { pending: 'being prepared', done: 'ready', failed: 'failed' } as const
const CSV_EXPORTS = [
  ['follows.csv', 'Follows', 'following_accounts.csv'],
  ['lists.csv', 'Lists', 'lists.csv'],
  ['blocks.csv', 'Blocked accounts', 'blocked_accounts.csv'],
  ['mutes.csv', 'Muted accounts', 'muted_accounts.csv'],
  ['domain_blocks.csv', 'Blocked domains', 'blocked_domains.csv'],
  ['bookmarks.csv', 'Bookmarks', 'bookmarks.csv'],
] as const

export function exportPage(o: {
  csrf: string
  archives: ArchiveRow[]
  canRequest: boolean
  error?: string
  notice?: string
}) {
  const archives = o.archives
    .map(
      (a) =>
        `<li>${when(a.created_at)} UTC: ${ARCHIVE_STATES[a.state]}${
          a.state === 'done'
            ? ` — <a href="/settings/exports/archives/${escape(a.id)}" download>download (${Math.ceil(Number(a.size ?? 0) / 1024)} kB)</a>`
            : ''
        }</li>`,
    )
    .join('')
  return settingsLayout(
    '/settings/export',
    'Export',
    `${alert(o.error)}${notice(o.notice)}
<h2>CSV files</h2><p>Mastodon reads these files (Import on any Mastodon server, or here).</p>
<ul>${CSV_EXPORTS.map(([file, label, name]) => `<li><a href="/settings/exports/${file}" download="${name}">${label}</a></li>`).join('')}</ul>
<h2>Archive</h2><p>Your posts (ActivityPub), profile, likes, bookmarks and media, zipped. One a week; kept for a week.</p>
${
  o.canRequest
    ? `<form method="post" action="/settings/export">${hidden({ csrf_token: o.csrf })}<button type="submit">Request your archive</button></form>`
    : '<p>You can request a new archive a week after the last one.</p>'
}
${archives ? `<ul id="archives">${archives}</ul>` : ''}`,
    'Export your data',
  )
}

export const IMPORT_TYPES = [
  ['following', 'Following list'],
  ['blocking', 'Blocked accounts'],
  ['muting', 'Muted accounts'],
  ['domain_blocking', 'Blocked domains'],
  ['bookmarks', 'Bookmarks'],
  ['lists', 'Lists'],
] as const

export function importsPage(o: { csrf: string; imports: ImportRow[]; error?: string; notice?: string }) {
  const label = (t: string) => IMPORT_TYPES.find(([k]) => k === t)?.[1] ?? t
  const imports = o.imports
    .map(
      (i) =>
        `<li data-import="${escape(i.id)}" data-state="${escape(i.state)}">${label(i.type)} (${
          i.overwrite ? 'overwrite' : 'merge'
        }${i.original_filename ? `, ${escape(i.original_filename)}` : ''}): <span class="state">${escape(i.state)}</span>, ${i.processed_items} of ${i.total_items} processed, ${i.imported_items} imported${
          i.failures.length
            ? `<ul class="failures">${i.failures
                .slice(0, 100)
                .map((f) => `<li>row ${f.row}: ${escape(f.value)} — ${escape(f.error)}</li>`)
                .join(
                  '',
                )}</ul>${i.failures.length > 100 ? `<p>…and ${i.failures.length - 100} more</p>` : ''}`
            : ''
        }</li>`,
    )
    .join('')
  return settingsLayout(
    '/settings/imports',
    'Import',
    `${alert(o.error)}${notice(o.notice)}
<p>A CSV file as Mastodon exports it (at most 20 MB and 20,000 rows).</p>
<form method="post" action="/settings/imports" enctype="multipart/form-data">
${hidden({ csrf_token: o.csrf })}
<label for="type">Import type</label><select id="type" name="type">${IMPORT_TYPES.map(([k, l]) => `<option value="${k}">${l}</option>`).join('')}</select>
<label for="data">File</label><input id="data" name="data" type="file" accept=".csv,text/csv" required>
<label><input type="radio" name="mode" value="merge" checked> Merge: keep what you have, add the file’s</label>
<label><input type="radio" name="mode" value="overwrite"> Overwrite: replace what you have with the file’s</label>
<button type="submit">Upload</button>
</form>
<h2>Recent imports</h2>${imports ? `<ul id="imports">${imports}</ul>` : '<p>None yet.</p>'}`,
  )
}

export function deletePage(o: { csrf: string; username: string; twoFactor: boolean; error?: string }) {
  return settingsLayout(
    '/settings/delete',
    'Delete account',
    `${alert(o.error)}
<p>Your account is suspended at once, then your posts, media, follows and everything else are removed, and other servers are told. Nobody can take your username afterwards. This cannot be undone.</p>
<form method="post" action="/settings/delete">
${hidden({ csrf_token: o.csrf })}
<label for="password">Your password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
${o.twoFactor ? '<label for="code">A two-factor code (or a recovery code)</label><input id="code" name="code" autocomplete="one-time-code" required>' : ''}
<button type="submit">Delete my account</button>
</form>`,
    `Delete @${o.username}`,
  )
}

export function deletedPage(username: string) {
  return layout(
    'Account deleted',
    `<h1>Your account is being deleted</h1><p role="status">@${escape(username)} is suspended and its data is being removed. Goodbye.</p>`,
  )
}
