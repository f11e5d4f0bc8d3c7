import type { Knex } from '@roost/db'
import { mail, processor } from '@roost/events'
import type { Mail } from '@roost/events'
import type { AccountsWorkerConfig } from '../config'
import { localDomainOf } from '../config'
import { CONFIRMATION_LIFETIME_MS, issueUserToken, PASSWORD_RESET_LIFETIME_MS } from '../domain/user_tokens'
import type { MessageFacts, MessageKind } from '../mail/messages'
import { renderMessage } from '../mail/messages'
import type { Mailer, OutgoingMail } from '../mail/transport'

type Config = Pick<AccountsWorkerConfig, 'PUBLIC_URL' | 'LOCAL_DOMAIN' | 'INSTANCE_TITLE'>

interface Recipient {
  id: string
  email: string
  unconfirmed_email: string | null
  locale: string
  username: string
  confirmed_at: Date | null
  suspended_at: Date | null
}

const DAY_MS = 24 * 3600 * 1000

/** A local user as a mail needs them: address, locale, name. */
const recipient = (db: Knex, userId: string): Promise<Recipient | undefined> =>
  db('users')
    .join('accounts', 'accounts.id', 'users.account_id')
    .where('users.id', userId)
    .first(
      'users.id',
      'users.email',
      'users.unconfirmed_email',
      'users.locale',
      'accounts.username',
      'users.confirmed_at',
      'accounts.suspended_at',
    )

/** `@name` for a local account, `@name@domain` for a remote one. */
const handle = (a: { username: string; domain: string | null }) =>
  `@${a.username}${a.domain ? `@${a.domain}` : ''}`

/**
 * The `mail` queue's processor (docs/operations.md, "Mail"): reads what the mail tells of when it runs (the event
 * holds ids only), makes the link's one-time token where there is one, lays the message out in the recipient's
 * locale and sends it. A mail whose reason has passed (an address confirmed meanwhile, a user gone) is not sent.
 * A failed send is retried by BullMQ (the queue's attempts and backoff); a retried link mail makes a new token,
 * as the first one never reached anybody.
 */
export function mailProcessor(d: { db: Knex; config: Config; mailer: Mailer; concurrency: number }) {
  const base = d.config.PUBLIC_URL.replace(/\/$/, '')
  const instance = d.config.INSTANCE_TITLE
  const out = <K extends MessageKind>(kind: K, to: Recipient, facts: MessageFacts[K]): OutgoingMail => ({
    kind,
    to: to.email,
    ...renderMessage(kind, to.locale, instance, facts),
  })

  const compose: {
    [N in Mail['event']]: (m: Extract<Mail, { event: N }>) => Promise<OutgoingMail | undefined>
  } = {
    async 'mail.confirmation'(m) {
      const user = await recipient(d.db, m.userId)
      if (!user || user.confirmed_at) return undefined
      const token = await d.db.transaction((trx) =>
        issueUserToken(trx, user.id, 'confirmation', { email: user.email }),
      )
      return out('confirmation', user, {
        username: user.username,
        link: `${base}/auth/confirmation?confirmation_token=${encodeURIComponent(token)}`,
        days: CONFIRMATION_LIFETIME_MS / DAY_MS,
      })
    },
    async 'mail.welcome'(m) {
      const user = await recipient(d.db, m.userId)
      if (!user || user.suspended_at) return undefined
      return out('welcome', user, {
        username: user.username,
        address: `@${user.username}@${localDomainOf(d.config)}`,
        url: base,
      })
    },
    async 'mail.password_reset'(m) {
      const user = await recipient(d.db, m.userId)
      if (!user || user.suspended_at) return undefined
      const token = await d.db.transaction((trx) => issueUserToken(trx, user.id, 'password_reset'))
      return out('password_reset', user, {
        username: user.username,
        link: `${base}/auth/password/edit?reset_password_token=${encodeURIComponent(token)}`,
        hours: PASSWORD_RESET_LIFETIME_MS / 3600_000,
      })
    },
    async 'mail.password_changed'(m) {
      const user = await recipient(d.db, m.userId)
      if (!user) return undefined
      return out('password_changed', user, { username: user.username, resetUrl: `${base}/auth/password/new` })
    },
    async 'mail.two_factor_enabled'(m) {
      const user = await recipient(d.db, m.userId)
      if (!user) return undefined
      return out('two_factor_enabled', user, {
        username: user.username,
        settingsUrl: `${base}/settings/two_factor`,
      })
    },
    async 'mail.two_factor_disabled'(m) {
      const user = await recipient(d.db, m.userId)
      if (!user) return undefined
      return out('two_factor_disabled', user, {
        username: user.username,
        settingsUrl: `${base}/settings/two_factor`,
      })
    },
    async 'mail.suspicious_sign_in'(m) {
      const [user, signIn] = await Promise.all([
        recipient(d.db, m.userId),
        d.db('user_sign_ins').where({ id: m.signInId }).first('ip', 'user_agent', 'created_at'),
      ])
      if (!user || !signIn) return undefined
      return out('suspicious_sign_in', user, {
        username: user.username,
        ip: signIn.ip,
        userAgent: signIn.user_agent,
        when: new Date(signIn.created_at).toUTCString(),
        resetUrl: `${base}/auth/password/new`,
      })
    },
    async 'mail.email_change'(m) {
      const user = await recipient(d.db, m.userId)
      if (!user?.unconfirmed_email || user.suspended_at) return undefined
      const newEmail = user.unconfirmed_email
      const token = await d.db.transaction((trx) =>
        issueUserToken(trx, user.id, 'confirmation', { email: newEmail }),
      )
      // To the new address: the change happens only when its owner opens the link.
      return out(
        'email_change',
        { ...user, email: newEmail },
        {
          username: user.username,
          newEmail,
          link: `${base}/auth/confirmation?confirmation_token=${encodeURIComponent(token)}`,
          days: CONFIRMATION_LIFETIME_MS / DAY_MS,
        },
      )
    },
    async 'mail.email_change_warning'(m) {
      const user = await recipient(d.db, m.userId)
      if (!user?.unconfirmed_email) return undefined
      return out('email_change_warning', user, {
        username: user.username,
        newEmail: user.unconfirmed_email,
        resetUrl: `${base}/auth/password/new`,
      })
    },
    async 'mail.warning'(m) {
      const warning = await d
        .db('account_warnings')
        .join('users', 'users.account_id', 'account_warnings.target_account_id')
        .where('account_warnings.id', m.warningId)
        .first('users.id as user_id', 'account_warnings.action', 'account_warnings.text')
      const user = warning && (await recipient(d.db, warning.user_id))
      if (!warning || !user) return undefined
      return out('warning', user, {
        acct: `@${user.username}@${localDomainOf(d.config)}`,
        action: warning.action,
        text: warning.text,
      })
    },
    async 'mail.admin_pending_account'(m) {
      const [to, pending] = await Promise.all([
        recipient(d.db, m.recipientUserId),
        d
          .db('users')
          .join('accounts', 'accounts.id', 'users.account_id')
          .where('accounts.id', m.accountId)
          .first('accounts.username', 'users.email', 'users.sign_up_reason', 'users.approved'),
      ])
      // Approved or rejected before the mail went out: nothing left to review.
      if (!to || !pending || pending.approved) return undefined
      return out('admin_pending_account', to, {
        username: pending.username,
        email: pending.email,
        reason: pending.sign_up_reason,
        accountId: m.accountId,
      })
    },
    async 'mail.admin_report'(m) {
      const [to, report] = await Promise.all([
        recipient(d.db, m.recipientUserId),
        d
          .db('reports')
          .join('accounts as reporter', 'reporter.id', 'reports.account_id')
          .join('accounts as target', 'target.id', 'reports.target_account_id')
          .where('reports.id', m.reportId)
          .first(
            'reports.id',
            'reports.comment',
            'reports.category',
            'reports.status_ids',
            'reporter.username as reporter_username',
            'reporter.domain as reporter_domain',
            'target.username as target_username',
            'target.domain as target_domain',
          ),
      ])
      if (!to || !report) return undefined
      return out('admin_report', to, {
        reportId: String(report.id),
        reporter: handle({ username: report.reporter_username, domain: report.reporter_domain }),
        target: handle({ username: report.target_username, domain: report.target_domain }),
        comment: report.comment,
        category: report.category,
        statusCount: (report.status_ids ?? []).length,
      })
    },
  }

  return processor({
    schema: mail,
    async process(m) {
      const message = await (compose[m.event] as (m: Mail) => Promise<OutgoingMail | undefined>)(m)
      if (message) await d.mailer.send(message)
    },
    concurrency: d.concurrency,
  })
}
