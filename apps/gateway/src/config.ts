import { z } from 'zod'
import { baseEnv, envPort, parseConfig } from '@roost/service'

/** The gateway's environment (documented in .env.example). */
export const gatewayEnv = baseEnv.extend({
  GATEWAY_PORT: envPort(3000),
  /** Where the gateway listens: 0.0.0.0 in containers, loopback by default. */
  GATEWAY_HOST: z.string().default('127.0.0.1'),
  ACCOUNTS_URL: z.url().default('http://127.0.0.1:3001'),
  PUSH_URL: z.url().default('http://127.0.0.1:3002'),
  /** Upstream sockets kept open per service. */
  GATEWAY_UPSTREAM_SOCKETS: z.coerce.number().int().positive().default(256),
})

export type GatewayConfig = z.infer<typeof gatewayEnv>

export const loadGatewayConfig = (env: Record<string, string | undefined>) => parseConfig(gatewayEnv, env)
