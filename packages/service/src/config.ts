import { z } from 'zod'

/** Variables every service reads. Each app extends this with its own in `src/config.ts`. */
export const baseEnv = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The address clients use to reach the gateway; absolute URLs (Link headers, media) are built from it. */
  PUBLIC_URL: z.url().default('http://localhost:3000'),
  /** The interface every process listens on: loopback by default, 0.0.0.0 in containers. */
  BIND_HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/roost'),
  /**
   * A connection straight to Postgres for what needs a session of its own (LISTEN, migrations) when DATABASE_URL
   * goes through PgBouncer in transaction mode (docs/operations.md, "PgBouncer"). Empty: DATABASE_URL.
   */
  DB_DIRECT_URL: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  /** false runs every statement unnamed (PgBouncer before 1.21 in transaction mode cannot keep named ones). */
  PREPARED_STATEMENTS: z
    .string()
    .optional()
    .transform((v) => v === undefined || v === '' || /^(true|1|yes|on)$/i.test(v)),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** Namespace for every Redis key and BullMQ queue, so environments (and test runs) never collide. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[\w.-]+$/)
    .default('roost'),
})

export type BaseConfig = z.infer<typeof baseEnv>

export class ConfigError extends Error {}

/** Parses the environment once, at start-up, with a message that names every bad variable. */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
): z.infer<S> {
  const result = schema.safeParse(env)
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`)
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`)
  }
  return result.data
}

/** Env flags are strings: "true"/"1"/"yes"/"on" mean true, anything else false. */
export const envFlag = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : /^(true|1|yes|on)$/i.test(v)))

/** `<limit>/<seconds>`, e.g. `300/300`: a rate-limit family's budget per fixed window. */
export const envRate = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const match = value.match(/^(\d+)\/(\d+)$/)
      if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) {
        ctx.addIssue({ code: 'custom', message: 'expected <limit>/<seconds>, e.g. 300/300' })
        return z.NEVER
      }
      return { limit: Number(match[1]), period: Number(match[2]) }
    })

export const envPort = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback)
