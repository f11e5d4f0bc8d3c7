/**
 * The texts of Roost's mails, per locale, each with a plain-text and an HTML body, in the instance's name
 * (docs/operations.md, "Mail"). A user's mail is written in their locale (`users.locale`), falling back to its
 * language and then to English; only English is written so far: a translation is one more entry of MESSAGES.
 */

/** What a message says, before it is laid out: a greeting, paragraphs, at most one button, a closing line. */
export interface MessageText {
  subject: string
  greeting: string
  paragraphs: string[]
  action?: { label: string; url: string }
  footer: string
}

/** The facts each kind of mail is made from. */
export interface MessageFacts {
  confirmation: { username: string; link: string; days: number }
  welcome: { username: string; address: string; url: string }
  password_reset: { username: string; link: string; hours: number }
  password_changed: { username: string; resetUrl: string }
  admin_pending_account: { username: string; email: string; reason: string | null; accountId: string }
  two_factor_enabled: { username: string; settingsUrl: string }
  two_factor_disabled: { username: string; settingsUrl: string }
  suspicious_sign_in: { username: string; ip: string; userAgent: string; when: string; resetUrl: string }
  email_change: { username: string; newEmail: string; link: string; days: number }
  email_change_warning: { username: string; newEmail: string; resetUrl: string }
  warning: { acct: string; action: string; text: string }
  admin_report: {
    reportId: string
    reporter: string
    target: string
    comment: string
    category: string
    statusCount: number
  }
}
export type MessageKind = keyof MessageFacts

type Texts = { [K in MessageKind]: (instance: string, facts: MessageFacts[K]) => MessageText }

const en: Texts = {
  confirmation: (instance, f) => ({
    subject: `Confirm your e-mail address for ${instance}`,
    greeting: `Hello @${f.username},`,
    paragraphs: [
      `This address was given to sign up on ${instance}. Open the link below to confirm it; your account can be used once it is confirmed.`,
      `The link works for ${f.days} days. If you did not sign up, ignore this mail: nothing happens without the link.`,
    ],
    action: { label: 'Confirm my e-mail address', url: f.link },
    footer: `Sent by ${instance} because this address was given at sign-up.`,
  }),
  welcome: (instance, f) => ({
    subject: `Welcome to ${instance}`,
    greeting: `Welcome, @${f.username}!`,
    paragraphs: [
      `Your account on ${instance} is ready. Others can find you as ${f.address}.`,
      'Sign in with any Mastodon app by giving it the address of this server.',
    ],
    action: { label: `Go to ${instance}`, url: f.url },
    footer: `Sent by ${instance} to welcome a new account.`,
  }),
  password_reset: (instance, f) => ({
    subject: `Reset your password on ${instance}`,
    greeting: `Hello @${f.username},`,
    paragraphs: [
      `Someone, hopefully you, asked to reset the password of your account on ${instance}. Open the link below to choose a new one.`,
      `The link works once, for ${f.hours} hours. If you did not ask for it, ignore this mail: your password stays as it is.`,
    ],
    action: { label: 'Choose a new password', url: f.link },
    footer: `Sent by ${instance} because a password reset was asked for this address.`,
  }),
  password_changed: (instance, f) => ({
    subject: `Your password on ${instance} was changed`,
    greeting: `Hello @${f.username},`,
    paragraphs: [
      `The password of your account on ${instance} has just been changed, and the apps signed in to it were signed out.`,
      'If you did not change it, someone else may know your password: reset it now with the link below.',
    ],
    action: { label: 'Reset my password', url: f.resetUrl },
    footer: `Sent by ${instance} to tell you of a change to your account.`,
  }),
  two_factor_enabled: (instance, f) => ({
    subject: `Two-factor authentication enabled on ${instance}`,
    greeting: `Hello @${f.username},`,
    paragraphs: [
      `Two-factor authentication has been turned on for your account on ${instance}: signing in now asks for a code of your authenticator app (or a recovery code) after the password.`,
      'If you did not turn it on, someone else may know your password: reset it now, and tell the moderators of this server.',
    ],
    action: { label: 'See your security settings', url: f.settingsUrl },
    footer: `Sent by ${instance} to tell you of a change to your account.`,
  }),
  two_factor_disabled: (instance, f) => ({
    subject: `Two-factor authentication disabled on ${instance}`,
    greeting: `Hello @${f.username},`,
    paragraphs: [
      `Two-factor authentication has been turned off for your account on ${instance}: the password alone opens it again, and your recovery codes and security keys no longer work.`,
      'If you did not turn it off, reset your password now and turn it on again.',
    ],
    action: { label: 'See your security settings', url: f.settingsUrl },
    footer: `Sent by ${instance} to tell you of a change to your account.`,
  }),
  suspicious_sign_in: (instance, f) => ({
    subject: `Your ${instance} account has been accessed from a new IP address`,
    greeting: `Hello @${f.username},`,
    paragraphs: [
      `Your account on ${instance} was signed in to from an address it had not been used from lately: ${f.ip}, at ${f.when}, with ${f.userAgent || 'an unknown browser'}.`,
      'If this was you, nothing needs to be done. If not, change your password now and turn on two-factor authentication.',
    ],
    action: { label: 'Reset my password', url: f.resetUrl },
    footer: `Sent by ${instance} to tell you of a sign-in to your account.`,
  }),
  email_change: (instance, f) => ({
    subject: `Confirm your new e-mail address for ${instance}`,
    greeting: `Hello @${f.username},`,
    paragraphs: [
      `You asked to change the e-mail address of your account on ${instance} to ${f.newEmail}. Open the link below to confirm it; until then the old address stays.`,
      `The link works for ${f.days} days. If you did not ask for this, ignore this mail.`,
    ],
    action: { label: 'Confirm my new address', url: f.link },
    footer: `Sent by ${instance} because this address was given for an account.`,
  }),
  email_change_warning: (instance, f) => ({
    subject: `The e-mail address of your ${instance} account is changing`,
    greeting: `Hello @${f.username},`,
    paragraphs: [
      `A change of your account's e-mail address on ${instance} to ${f.newEmail} was asked for; it happens when the link sent to that address is opened.`,
      'If you did not ask for it, someone may know your password: reset it now, which also cancels nothing else but signs every app out.',
    ],
    action: { label: 'Reset my password', url: f.resetUrl },
    footer: `Sent by ${instance} to tell you of a change to your account.`,
  }),
  // Mastodon's user_mailer.warning texts: the subject names the action (config/locales/en.yml, warning.subject).
  warning: (instance, f) => ({
    subject:
      {
        none: `Warning for ${f.acct}`,
        disable: `Your account ${f.acct} has been frozen`,
        silence: `Your account ${f.acct} has been limited`,
        suspend: `Your account ${f.acct} has been suspended`,
        sensitive: `Your account ${f.acct} posts will be marked as sensitive from now on`,
      }[f.action] ?? `Warning for ${f.acct}`,
    greeting: `Hello ${f.acct},`,
    paragraphs: [
      {
        none: `The moderators of ${instance} have sent you a warning.`,
        disable: `The moderators of ${instance} have frozen your account: you can no longer sign in to use it, but it and its posts stay.`,
        silence: `The moderators of ${instance} have limited your account: only people who already follow you see your posts, and it may be left out of public listings.`,
        suspend: `The moderators of ${instance} have suspended your account: it can no longer be used, and its profile and posts are no longer shown.`,
      }[f.action] ?? `The moderators of ${instance} have taken an action on your account.`,
      ...(f.text ? [`Their words: “${f.text}”`] : []),
    ],
    footer: `Sent by ${instance} to tell you of a moderation decision on your account.`,
  }),
  admin_pending_account: (instance, f) => ({
    subject: `New account up for review on ${instance} (@${f.username})`,
    greeting: 'Hello,',
    paragraphs: [
      `@${f.username} (${f.email}) has signed up on ${instance} and confirmed their address; the account waits for approval.`,
      f.reason ? `Why they want to join: “${f.reason}”` : 'They gave no reason.',
      `Approve or reject it with the admin API (POST /api/v1/admin/accounts/${f.accountId}/approve or /reject) or the command line (roost accounts approve ${f.username}).`,
    ],
    footer: `Sent by ${instance} to its moderators.`,
  }),
  admin_report: (instance, f) => ({
    subject: `New report for ${instance} (#${f.reportId})`,
    greeting: 'Hello,',
    paragraphs: [
      `${f.reporter} has reported ${f.target} (${f.category}${f.statusCount ? `, ${f.statusCount} post${f.statusCount === 1 ? '' : 's'}` : ''}).`,
      f.comment ? `Their comment: “${f.comment}”` : 'They left no comment.',
      `See it with the admin API: GET /api/v1/admin/reports/${f.reportId}.`,
    ],
    footer: `Sent by ${instance} to its moderators.`,
  }),
}

/** The texts of every locale written so far. */
const MESSAGES: Record<string, Texts> = { en }

/** The texts for a locale (`pt-BR`): that locale, else its language (`pt`), else English. */
export function textsFor(locale: string | null | undefined): Texts {
  const tag = (locale ?? 'en').trim()
  return MESSAGES[tag] ?? MESSAGES[tag.split('-')[0]!.toLowerCase()] ?? en
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** A message laid out: its subject, its plain-text body and its HTML body, and the links it holds. */
export interface RenderedMessage {
  subject: string
  text: string
  html: string
  links: string[]
}

/** Lays out a message in the instance's name, as plain text and as HTML (no scripts, no remote images). */
export function renderMessage<K extends MessageKind>(
  kind: K,
  locale: string | null | undefined,
  instance: string,
  facts: MessageFacts[K],
): RenderedMessage {
  const m = (textsFor(locale)[kind] as (i: string, f: MessageFacts[K]) => MessageText)(instance, facts)
  const text = [
    m.greeting,
    '',
    ...m.paragraphs.flatMap((p) => [p, '']),
    ...(m.action ? [`${m.action.label}:`, m.action.url, ''] : []),
    '-- ',
    m.footer,
    '',
  ].join('\n')
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(m.subject)}</title></head>
<body style="margin:0;padding:2rem 1rem;background:#f4f4f8;font-family:system-ui,sans-serif;color:#222">
<div style="max-width:32rem;margin:0 auto;background:#fff;border-radius:12px;padding:2rem">
<p style="font-size:1.2rem;font-weight:bold;margin-top:0">${escapeHtml(instance)}</p>
<p>${escapeHtml(m.greeting)}</p>
${m.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${
  m.action
    ? `<p><a href="${escapeHtml(m.action.url)}" style="display:inline-block;padding:.6rem 1.2rem;border-radius:6px;background:#563acc;color:#fff;text-decoration:none">${escapeHtml(m.action.label)}</a></p>
<p style="font-size:.85rem;color:#555">Or copy this address into your browser: ${escapeHtml(m.action.url)}</p>`
    : ''
}
<p style="font-size:.85rem;color:#555;border-top:1px solid #ddd;padding-top:1rem">${escapeHtml(m.footer)}</p>
</div></body></html>
`
  return { subject: m.subject, text, html, links: m.action ? [m.action.url] : [] }
}
