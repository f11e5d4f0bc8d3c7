import pino from 'pino'
import type { Logger } from 'pino'

export type { Logger }

/** Paths whose values never reach a log line. */
const redact = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'res.headers["set-cookie"]',
    '*.password',
    '*.client_secret',
    '*.access_token',
    '*.privateKey',
  ],
  censor: '[redacted]',
}

/**
 * JSON logs on stdout, or to LOG_DESTINATION (a file path) when set, which keeps test output readable.
 */
export function createLogger(name: string, level: string): Logger {
  const destination = process.env.LOG_DESTINATION
  return pino(
    { name, level, redact, base: { service: name } },
    destination ? pino.destination({ dest: destination, sync: false, mkdir: true }) : undefined,
  )
}
