import { z } from 'zod'
import { baseEnv, envPort, parseConfig } from '@roost/service'

/** The push service's environment, for its API and its workers (documented in .env.example). */
export const pushEnv = baseEnv.extend({
  PUSH_PORT: envPort(3002),
  PUSH_WORKER_PORT: envPort(3003),
  /** Where the accounts service publishes its token keys. */
  ACCOUNTS_URL: z.url().default('http://127.0.0.1:3001'),
  VAPID_PUBLIC_KEY: z.string().min(1),
  VAPID_PRIVATE_KEY: z.string().min(1),
  /** The contact in every VAPID JWT (`sub`): a mailto: or https: URL. */
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:|https:)/)
    .default('mailto:admin@localhost'),
})

export type PushConfig = z.infer<typeof pushEnv>

export const loadPushConfig = (env: Record<string, string | undefined>) => parseConfig(pushEnv, env)
