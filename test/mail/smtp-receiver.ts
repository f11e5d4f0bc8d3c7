import type { AddressInfo } from 'node:net'
import { simpleParser } from 'mailparser'
import type { ParsedMail } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { startStack } from '../stack'

/** A message as the receiver got it: its envelope and the parsed message. */
export interface ReceivedMail {
  from: string
  to: string[]
  subject: string
  text: string
  html: string
  /** The links of the plain-text body. */
  links: string[]
  parsed: ParsedMail
}

/**
 * A real SMTP server on loopback (the `smtp-server` package) that keeps what it receives, parsed by `mailparser`:
 * the receiving end of the mail tests. It asks for the given login; `refuseOnce` names recipients whose first
 * delivery it refuses with a temporary 451, as a busy server does.
 */
export async function startSmtpReceiver(options: { login: string; password: string; refuseOnce?: string[] }) {
  const received: ReceivedMail[] = []
  const refused = new Set<string>()
  let wake: (() => void)[] = []
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.login && auth.password === options.password)
        return callback(null, { user: auth.username })
      callback(new Error('Invalid username or password'))
    },
    onRcptTo(address, session, callback) {
      if (!session.user)
        return callback(Object.assign(new Error('Authentication required'), { responseCode: 530 }))
      const to = address.address.toLowerCase()
      if (options.refuseOnce?.includes(to) && !refused.has(to)) {
        refused.add(to)
        return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }))
      }
      callback()
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          const text = parsed.text ?? ''
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: parsed.subject ?? '',
            text,
            html: typeof parsed.html === 'string' ? parsed.html : '',
            links: text.match(/https?:\/\/\S+/g) ?? [],
            parsed,
          })
          for (const w of wake) w()
          wake = []
          callback()
        },
        (err: Error) => callback(err),
      )
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port

  /** The messages to `to` so far (all, without `to`). */
  const to = (address?: string) =>
    address ? received.filter((m) => m.to.includes(address.toLowerCase())) : [...received]

  return {
    port,
    received,
    to,
    /** Waits for the `n`th message (1 = the first) to `address` whose subject matches, and returns it. */
    async next(address: string, subject: RegExp, n = 1, timeoutMs = 15_000): Promise<ReceivedMail> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = to(address).filter((m) => subject.test(m.subject))
        if (found.length >= n) return found[n - 1]!
        if (Date.now() > deadline)
          throw new Error(
            `no mail ${n} to ${address} matching ${subject}; got: ${received.map((m) => `${m.to} ${m.subject}`).join('; ')}`,
          )
        await new Promise<void>((resolve) => {
          wake.push(resolve)
          setTimeout(resolve, 100)
        })
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
export type SmtpReceiver = Awaited<ReturnType<typeof startSmtpReceiver>>

/** The environment that points a stack's accounts worker at the receiver. */
export const smtpEnv = (receiver: SmtpReceiver, login: string, password: string) => ({
  SMTP_SERVER: '127.0.0.1',
  SMTP_PORT: String(receiver.port),
  SMTP_LOGIN: login,
  SMTP_PASSWORD: password,
  SMTP_ENABLE_STARTTLS: 'never',
  SMTP_FROM_ADDRESS: 'notifications@roost.test',
  INSTANCE_TITLE: 'Roost Test Town',
})

/** The login the receiver asks for, as the mail tests give it to the stack. */
export const SMTP_LOGIN = 'roost-mailer'
export const SMTP_PASSWORD = 'smtp-password-for-tests'

/**
 * The rate limits of the mail tests: on (the mail throttles apply as in production), with the general budgets out
 * of the way of a test that signs many up and calls the API often from one address. A test sets its own mail and
 * sign-in budgets on top.
 */
export const MAIL_TEST_RATE_LIMITS = {
  RATE_LIMITS: 'on',
  RATE_LIMIT_SIGN_UPS: '1000/300',
  RATE_LIMIT_APP_REGISTRATIONS: '1000/300',
  RATE_LIMIT_API_IP: '10000/300',
  RATE_LIMIT_API_TOKEN: '10000/300',
  RATE_LIMIT_API_USER: '10000/300',
}

/**
 * A receiver and a stack whose accounts worker sends to it (the one setup of the mail tests): `env` on top of
 * smtpEnv and, unless `rateLimits` is false, MAIL_TEST_RATE_LIMITS; `stop` ends both.
 */
export async function startMailStack(
  options: { env?: Record<string, string>; refuseOnce?: string[]; rateLimits?: boolean } = {},
) {
  const smtp = await startSmtpReceiver({
    login: SMTP_LOGIN,
    password: SMTP_PASSWORD,
    refuseOnce: options.refuseOnce,
  })
  const stack = await startStack({
    env: {
      ...smtpEnv(smtp, SMTP_LOGIN, SMTP_PASSWORD),
      ...(options.rateLimits === false ? {} : MAIL_TEST_RATE_LIMITS),
      ...options.env,
    },
  }).catch(async (err: unknown) => {
    await smtp.close()
    throw err
  })
  return {
    smtp,
    stack,
    async stop() {
      await stack.stop()
      await smtp.close()
    },
  }
}
