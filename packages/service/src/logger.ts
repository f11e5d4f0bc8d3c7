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

/** One writer per file for the whole process: loggers come and go with services (tests), the file stays open once. */
const files = new Map<string, ReturnType<typeof pino.destination>>()

/**
 * JSON logs on stdout, or to LOG_DESTINATION (a file path) when set, which keeps test output readable.
 */
export function createLogger(name: string, level: string): Logger {
  const path = process.env.LOG_DESTINATION
  let destination = path ? files.get(path) : undefined
  if (path && !destination) {
    destination = pino.destination({ dest: path, sync: false, mkdir: true })
    files.set(path, destination)
  }
  return pino({ name, level, redact, base: { service: name } }, destination)
}
