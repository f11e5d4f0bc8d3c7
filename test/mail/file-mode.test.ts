import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { simpleParser } from 'mailparser'
import { ConfigError } from '@roost/service'
import type { Logger } from '@roost/service'
import { loadAccountsConfig, loadAccountsWorkerConfig } from '../../apps/accounts/src/config'
import { renderMessage } from '../../apps/accounts/src/mail/messages'
import { createMailer } from '../../apps/accounts/src/mail/transport'

/**
 * Without SMTP_SERVER (development), each message is written to MAIL_DIR and its path and links logged; a
 * production server that asks sign-ups to confirm their address refuses to start without SMTP (issue #35).
 */
const required = {
  OAUTH_SIGNING_KEYS: '[{"kid":"k"}]',
  SESSION_SECRET: 'a-session-secret-that-is-long-enough-0123456789',
  OTP_SECRET: 'an-otp-secret-that-is-long-enough-0123456789',
  GATEWAY_SECRET: 'a-gateway-secret-that-is-long-enough-0123456789',
}

function recordingLogger() {
  const lines: { fields: Record<string, unknown>; message: string }[] = []
  const record = (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message })
  return { lines, logger: { info: record, warn: record, error: record, debug: record } as unknown as Logger }
}

const baseConfig = (dir: string, NODE_ENV: 'development' | 'production') => ({
  NODE_ENV,
  PUBLIC_URL: 'https://roost.example',
  INSTANCE_TITLE: 'Roost Dev',
  SMTP_PORT: 587,
  SMTP_TLS: false,
  SMTP_ENABLE_STARTTLS: 'auto' as const,
  SMTP_OPENSSL_VERIFY_MODE: 'peer' as const,
  MAIL_DIR: dir,
})

it('writes each message to MAIL_DIR as an .eml file, logging its path and links', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roost-mail-'))
  const { lines, logger } = recordingLogger()
  const mailer = createMailer(baseConfig(dir, 'development'), logger)
  const link = 'https://roost.example/auth/password/edit?reset_password_token=abc'
  await mailer.send({
    kind: 'password_reset',
    to: 'ann@example.test',
    ...renderMessage('password_reset', 'en', 'Roost Dev', { username: 'ann', link, hours: 6 }),
  })
  mailer.close()
  const [file] = readdirSync(dir)
  expect(file).toMatch(/-password_reset-[0-9a-f]{8}\.eml$/)
  expect(statSync(path.join(dir, file!)).mode & 0o777).toBe(0o600)
  const message = await simpleParser(readFileSync(path.join(dir, file!)))
  expect(message.subject).toBe('Reset your password on Roost Dev')
  expect(message.from?.value).toEqual([{ name: 'Roost Dev', address: 'notifications@roost.example' }])
  expect(message.text).toContain(link)
  expect(message.html).toContain(link.replace(/&/g, '&amp;'))
  expect(lines).toEqual([
    {
      message: 'mail written to a file (no SMTP_SERVER)',
      fields: { kind: 'password_reset', file: path.join(dir, file!), links: [link] },
    },
  ])
})

it('logs no links in production, where they would open accounts', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roost-mail-'))
  const { lines, logger } = recordingLogger()
  const mailer = createMailer(baseConfig(dir, 'production'), logger)
  await mailer.send({
    kind: 'welcome',
    to: 'ann@example.test',
    ...renderMessage('welcome', 'pt-BR', 'Roost Dev', {
      username: 'ann',
      address: '@ann@roost.example',
      url: 'x',
    }),
  })
  mailer.close()
  expect(lines[0]!.fields).not.toHaveProperty('links')
})

it('refuses to start in production without SMTP while e-mail confirmation is required (the default)', () => {
  for (const load of [loadAccountsConfig, loadAccountsWorkerConfig]) {
    expect(() => load({ ...required, NODE_ENV: 'production' })).toThrow(ConfigError)
    expect(() => load({ ...required, NODE_ENV: 'production' })).toThrow(/SMTP_SERVER/)
    expect(
      load({ ...required, NODE_ENV: 'production', SMTP_SERVER: 'smtp.example' }).REQUIRE_EMAIL_CONFIRMATION,
    ).toBe(true)
    expect(
      load({ ...required, NODE_ENV: 'production', REQUIRE_EMAIL_CONFIRMATION: 'false' }).SMTP_SERVER,
    ).toBe(undefined)
    expect(load({ ...required, NODE_ENV: 'development' }).MAIL_DIR).toBe('.data/mail')
  }
})
