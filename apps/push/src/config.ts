import { z } from 'zod'
import { QUEUES } from '@roost/events'
import { baseEnv, envPort, parseConfig } from '@roost/service'

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback)

/** The push service's environment, for its API and its workers (documented in .env.example). */
export const pushEnv = baseEnv.extend({
  PUSH_PORT: envPort(3002),
  PUSH_WORKER_PORT: envPort(3003),
  /** Where the accounts service publishes its token keys. */
  ACCOUNTS_URL: z.url().default('http://127.0.0.1:3001'),
  /** Checks the gateway's word that it has looked a token up in the revocation list (the gateway's GATEWAY_SECRET). */
  GATEWAY_SECRET: z.string().min(32),
  VAPID_PUBLIC_KEY: z.string().min(1),
  VAPID_PRIVATE_KEY: z.string().min(1),
  /** The contact in every VAPID JWT (`sub`): a mailto: or https: URL. */
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:|https:)/)
    .default('mailto:admin@localhost'),
  /** CIDRs push requests may reach although private (comma or space separated); empty in production. */
  PUSH_ALLOWED_PRIVATE_ADDRESSES: z.string().default(''),
  PUSH_NOTIFICATIONS_QUEUE: z.string().default(QUEUES.notifications),
  PUSH_DELIVERIES_QUEUE: z.string().default(QUEUES.pushDeliveries),
  PUSH_ACCOUNT_EVENTS_QUEUE: z.string().default(QUEUES.accountEvents),
  PUSH_FANOUT_CONCURRENCY: positiveInt(20),
  PUSH_DELIVERY_CONCURRENCY: positiveInt(20),
  PUSH_DELIVERY_ATTEMPTS: positiveInt(5),
  /** First retry delay; each further retry doubles it (a push service's Retry-After wins when longer). */
  PUSH_RETRY_BASE_MS: positiveInt(5000),
  PUSH_CONNECT_TIMEOUT_MS: positiveInt(5000),
  PUSH_REQUEST_TIMEOUT_MS: positiveInt(10000),
  /**
   * How long a push job stays claimed without its worker renewing the claim: the jobs of a worker that died are
   * taken over this long after it stopped renewing (BullMQ's lockDuration and stalledInterval).
   */
  PUSH_WORKER_LOCK_MS: z.coerce.number().int().min(1000).default(30_000),
  /** Sockets kept per push-service origin. */
  PUSH_MAX_SOCKETS_PER_ORIGIN: positiveInt(16),
})

export type PushConfig = z.infer<typeof pushEnv>

export const loadPushConfig = (env: Record<string, string | undefined>) => parseConfig(pushEnv, env)
