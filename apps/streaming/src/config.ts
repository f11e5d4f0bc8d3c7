import { z } from 'zod'
import { baseEnv, envPort, parseConfig } from '@roost/service'

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback)

/** The streaming service's environment (documented in .env.example; docs/streaming.md). */
export const streamingEnv = baseEnv.extend({
  STREAMING_PORT: envPort(3005),
  /** Where the token keys are published, and where list ownership is asked. */
  ACCOUNTS_URL: z.url().default('http://127.0.0.1:3001'),
  /** WebSocket pings; a socket that has not answered the previous one by the next is closed (Mastodon: 30 s). */
  STREAMING_PING_INTERVAL_MS: positiveInt(30_000),
  /** Server-Sent Events get a `:thump` comment this often (Mastodon: 15 s). */
  STREAMING_HEARTBEAT_INTERVAL_MS: positiveInt(15_000),
  /** How often open streams' tokens are checked against the revocation list: a revoked token's streams close within it. */
  STREAMING_REVOCATION_CHECK_MS: positiveInt(500),
  /** A client that lets this many bytes pile up unsent (it reads too slowly) is disconnected. */
  STREAMING_MAX_BUFFERED_BYTES: positiveInt(4 * 1024 * 1024),
})

export type StreamingConfig = z.infer<typeof streamingEnv>

export const loadStreamingConfig = (env: Record<string, string | undefined>) => parseConfig(streamingEnv, env)
