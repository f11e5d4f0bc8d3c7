import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { UnrecoverableError } from 'bullmq'
import nodemailer from 'nodemailer'
import type { Logger } from '@roost/service'
import type { AccountsWorkerConfig } from '../config'
import { mailFromOf } from '../config'
import type { RenderedMessage } from './messages'

/** A laid-out message and where it goes. */
export interface OutgoingMail extends RenderedMessage {
  to: string
  /** The kind of mail (`confirmation`, …), for logs and file names. */
  kind: string
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>
  close(): void
}

type MailConfig = Pick<
  AccountsWorkerConfig,
  | 'NODE_ENV'
  | 'PUBLIC_URL'
  | 'INSTANCE_TITLE'
  | 'SMTP_SERVER'
  | 'SMTP_PORT'
  | 'SMTP_LOGIN'
  | 'SMTP_PASSWORD'
  | 'SMTP_FROM_ADDRESS'
  | 'SMTP_TLS'
  | 'SMTP_ENABLE_STARTTLS'
  | 'SMTP_OPENSSL_VERIFY_MODE'
  | 'MAIL_DIR'
>

/** The From header: the instance's name and SMTP_FROM_ADDRESS (or notifications@ the public host). */
const fromOf = (config: MailConfig) => ({ name: config.INSTANCE_TITLE, address: mailFromOf(config) })

/**
 * An SMTP refusal that will never turn into an acceptance (5xx: no such mailbox, relaying denied, a message
 * refused): the job fails for good rather than being tried for an hour. Connection failures and 4xx are retried.
 */
function classify(err: unknown): unknown {
  const code = (err as { responseCode?: number }).responseCode
  if (typeof code === 'number' && code >= 500 && code < 600)
    return new UnrecoverableError(
      `the SMTP server refused the message for good (${code}): ${(err as Error).message}`,
    )
  return err
}

/**
 * The accounts worker's way out for mail (docs/operations.md, "Mail"): nodemailer over SMTP when SMTP_SERVER is
 * set; otherwise each message, composed by nodemailer all the same, is written to MAIL_DIR as an `.eml` file and
 * its path and links are logged, so the flows can be followed on a development machine. (In production the links
 * are not logged: they open accounts.)
 */
export function createMailer(config: MailConfig, logger: Logger): Mailer {
  const from = fromOf(config)
  if (config.SMTP_SERVER) {
    const transport = nodemailer.createTransport({
      host: config.SMTP_SERVER,
      port: config.SMTP_PORT,
      secure: config.SMTP_TLS,
      requireTLS: config.SMTP_ENABLE_STARTTLS === 'always',
      ignoreTLS: config.SMTP_ENABLE_STARTTLS === 'never',
      ...(config.SMTP_LOGIN ? { auth: { user: config.SMTP_LOGIN, pass: config.SMTP_PASSWORD ?? '' } } : {}),
      tls: { rejectUnauthorized: config.SMTP_OPENSSL_VERIFY_MODE !== 'none' },
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    })
    return {
      async send(mail) {
        try {
          const info = await transport.sendMail({
            from,
            to: mail.to,
            subject: mail.subject,
            text: mail.text,
            html: mail.html,
          })
          logger.info({ kind: mail.kind, messageId: info.messageId }, 'mail sent')
        } catch (err) {
          throw classify(err)
        }
      },
      close: () => transport.close(),
    }
  }

  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  const dir = path.resolve(config.MAIL_DIR)
  return {
    async send(mail) {
      const info = await composer.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      })
      await mkdir(dir, { recursive: true })
      const file = path.join(dir, `${Date.now()}-${mail.kind}-${randomBytes(4).toString('hex')}.eml`)
      await writeFile(file, info.message as Buffer, { mode: 0o600 })
      const production = config.NODE_ENV === 'production'
      logger.info(
        { kind: mail.kind, file, ...(production ? {} : { links: mail.links }) },
        'mail written to a file (no SMTP_SERVER)',
      )
    },
    close: () => composer.close(),
  }
}
