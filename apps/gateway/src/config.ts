import { z } from 'zod'
import { baseEnv, envFlag, envPort, parseConfig } from '@roost/service'

/** The gateway's environment (documented in .env.example). */
export const gatewayEnv = baseEnv.extend({
  GATEWAY_PORT: envPort(3000),
  /** Where the gateway listens: 0.0.0.0 in containers, loopback by default. */
  GATEWAY_HOST: z.string().default('127.0.0.1'),
  ACCOUNTS_URL: z.url().default('http://127.0.0.1:3001'),
  PUSH_URL: z.url().default('http://127.0.0.1:3002'),
  /** Upstream sockets kept open per service. */
  GATEWAY_UPSTREAM_SOCKETS: z.coerce.number().int().positive().default(256),
  /** Bull Board at /admin/queues (admins only). */
  BULL_BOARD: envFlag(true),
  /** The board only shows queues and jobs; set false to allow retries, removals and pauses (needs admin:write). */
  BULL_BOARD_READ_ONLY: envFlag(true),
  /** The board's OAuth app; needed with several gateway replicas, else registered on first sign-in. */
  BULL_BOARD_CLIENT_ID: z.string().default(''),
  BULL_BOARD_CLIENT_SECRET: z.string().default(''),
})

export type GatewayConfig = z.infer<typeof gatewayEnv>

export const loadGatewayConfig = (env: Record<string, string | undefined>) => parseConfig(gatewayEnv, env)
