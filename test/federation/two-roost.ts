import { createRestAPIClient } from 'masto'
import { eventually as eventuallyWithin } from '../stack'
import type { Stack } from '../stack'

/**
 * What the tests across two Roost servers (test/federation/*-two-roost.test.ts) share: each starts two stacks with
 * this environment (plain HTTP between them on loopback, quick delivery retries).
 */
export const FEDERATED = { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' }

/** Effects across servers go through several queues on both sides: generous on a loaded shared machine. */
export const eventually = <T>(check: () => Promise<T>, timeoutMs = 90_000) =>
  eventuallyWithin(check, timeoutMs)

/** A server's host, as accounts of the other server name it (`user@host`). */
export const domainOf = (s: Stack) => new URL(s.url).host

/** masto.js as a client of `s` with `token`. */
export const masto = (s: Stack, token: string, timeout = 30_000) =>
  createRestAPIClient({ url: s.url, accessToken: token, timeout })
