import { z } from 'zod'
import { baseEnv, envFlag, envPort, envRate, parseConfig } from '@roost/service'

/** A comma-separated list of CIDRs or addresses. */
const envCidrs = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )

/**
 * One upstream URL, or several separated by commas: copies of one service, which the gateway takes in turn
 * (docs/operations.md, "Several copies of each process"). `upstreamUrls` reads the list.
 */
const envUpstreams = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((v) => upstreamUrls(v).length > 0 && upstreamUrls(v).every((url) => URL.canParse(url)), {
      message: 'expected a URL, or several separated by commas',
    })

/** The URLs of an upstream variable (ACCOUNTS_URL, PUSH_URL, STREAMING_URL). */
export const upstreamUrls = (value: string) =>
  value
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean)

/** The gateway's environment (documented in .env.example). */
export const gatewayEnv = baseEnv.extend({
  GATEWAY_PORT: envPort(3000),
  /** Internal port of /metrics (and the health checks): metrics are not served on the public port. */
  GATEWAY_METRICS_PORT: envPort(3009),
  ACCOUNTS_URL: envUpstreams('http://127.0.0.1:3001'),
  PUSH_URL: envUpstreams('http://127.0.0.1:3002'),
  STREAMING_URL: envUpstreams('http://127.0.0.1:3005'),
  /** Upstream sockets kept open per service. */
  GATEWAY_UPSTREAM_SOCKETS: z.coerce.number().int().positive().default(256),

  /**
   * Proxies (load balancers, ingress) whose `X-Forwarded-For` is believed, as CIDRs: `10.0.0.0/8,127.0.0.1`.
   * Empty (the default) trusts nobody: the client address is the socket peer. See client-address.ts.
   */
  TRUSTED_PROXIES: envCidrs,
  /**
   * Signs the client address the gateway hands to the services (HMAC), so that a request sent straight to a
   * service's port cannot choose its address. The same value on the gateway and the accounts service.
   */
  GATEWAY_SECRET: z.string().min(32),

  /** `off` disables every rate limit (development); anything else keeps them on. */
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  // One budget per family, `<limit>/<seconds>`; the families and their routes are in rate-limit.ts.
  // Defaults are Mastodon's (docs/mastodon-compatibility.md, "Rate limits").
  RATE_LIMIT_API_USER: envRate('1500/300'),
  RATE_LIMIT_API_TOKEN: envRate('300/300'),
  RATE_LIMIT_API_IP: envRate('300/300'),
  RATE_LIMIT_SIGN_UPS: envRate('5/1800'),
  RATE_LIMIT_APP_REGISTRATIONS: envRate('5/600'),
  RATE_LIMIT_FOLLOWS: envRate('400/86400'),
  RATE_LIMIT_STATUSES: envRate('300/10800'),
  RATE_LIMIT_DELETES: envRate('30/1800'),
  RATE_LIMIT_MEDIA: envRate('30/1800'),

  /** Largest request body on ordinary routes (JSON and forms), in bytes: larger → 413. */
  GATEWAY_BODY_LIMIT: z.coerce
    .number()
    .int()
    .positive()
    .default(100 * 1024),
  /**
   * Largest request body on upload routes (media, avatar and header), in bytes: a 99 MB video (Mastodon's
   * VIDEO_LIMIT) with a 16 MB thumbnail and room for the form.
   */
  GATEWAY_UPLOAD_BODY_LIMIT: z.coerce
    .number()
    .int()
    .positive()
    .default((99 + 16 + 1) * 1024 * 1024),
  /** A client must send all request headers within this time (slowloris), else 408 and the socket closes. */
  GATEWAY_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** A client must send the whole request (headers and body) within this time, else 408. */
  GATEWAY_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
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
