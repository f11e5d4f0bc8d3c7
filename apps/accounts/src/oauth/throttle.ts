import type { Request, Response } from 'express'
import { rateLimitSubject } from '@roost/auth'
import { HttpError } from '@roost/service'
import type { AccountsContext } from '../context'
import { clientAddress } from '../ip_blocks/rules'

/** Mastodon's `X-RateLimit-Reset`: ISO 8601 UTC with six fractional digits (as the gateway's limits). */
const iso6 = (date: Date) => date.toISOString().replace(/Z$/, '000Z')

/**
 * Throttles credential guessing (docs/security.md, "Credential guessing"): failed attempts (a wrong password on
 * the password grant or the sign-in page, a wrong client secret on /oauth/token and /oauth/revoke) are counted
 * per client address (IPv6: its /64) and per account (the login name) or client (`client_id`), in fixed windows in Redis. While a
 * subject has used its budget, every attempt naming it answers 429, right or wrong, so guessing cannot go on.
 * Counted in the accounts service, the only one that knows an attempt failed; the address is the one the
 * gateway signed. Each answer carries `X-RateLimit-*` of the subject with the fewest attempts left.
 */
export async function guardCredentials(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  accounts: (string | undefined)[],
) {
  const config = ctx.config
  if (config.RATE_LIMITS === 'off') return { fail: async (_failed?: (string | undefined)[]) => {} }
  const now = Date.now()
  const address = clientAddress(ctx, req) ?? 'unknown'
  const subjects = [
    // IPv6 by /64, as Mastodon's Rack::Attack: one customer holds a whole /64.
    { name: `ip:${rateLimitSubject(address)}`, account: undefined, ...config.RATE_LIMIT_SIGN_IN_IP },
    ...[...new Set(accounts.filter((a): a is string => !!a).map((a) => a.toLowerCase()))].map((account) => ({
      name: `account:${account}`,
      account,
      ...config.RATE_LIMIT_SIGN_IN_ACCOUNT,
    })),
  ].map((s) => {
    const periodMs = s.period * 1000
    const index = Math.floor(now / periodMs)
    return {
      account: s.account,
      key: `${config.REDIS_PREFIX}:sign-in-failures:${s.name}:${index}`,
      limit: s.limit,
      reset: new Date((index + 1) * periodMs),
    }
  })
  // One key per command (a pipeline, not MGET or MULTI): the keys may live in different Redis Cluster slots.
  const read = ctx.redis.pipeline()
  for (const s of subjects) read.get(s.key)
  const counts = ((await read.exec()) ?? []).map(([, value]) => Number(value ?? 0))
  const show = (used: number[]) => {
    const states = subjects.map((s, i) => ({ ...s, remaining: Math.max(0, s.limit - used[i]!) }))
    const tightest = states.reduce((a, b) => (b.remaining < a.remaining ? b : a))
    const headers = {
      'X-RateLimit-Limit': String(tightest.limit),
      'X-RateLimit-Remaining': String(tightest.remaining),
      'X-RateLimit-Reset': iso6(tightest.reset),
    }
    res.set(headers)
    return { tightest, headers }
  }
  const { tightest, headers } = show(counts)
  if (tightest.remaining === 0) {
    const retryAfter = String(Math.max(1, Math.ceil((tightest.reset.getTime() - now) / 1000)))
    throw new HttpError(429, 'Too many requests', {}, { ...headers, 'Retry-After': retryAfter })
  }
  return {
    /**
     * Counts a failed attempt against the address and the accounts that failed (all by default: a wrong
     * password counts against the login, not against the client), INCR, each key expiring with its window.
     */
    async fail(failed: (string | undefined)[] = accounts) {
      const named = new Set(failed.filter((a): a is string => !!a).map((a) => a.toLowerCase()))
      const counted = subjects.map((s) => !s.account || named.has(s.account))
      const tx = ctx.redis.pipeline()
      subjects.forEach((s, i) => {
        if (counted[i]) tx.incr(s.key).pexpireat(s.key, s.reset.getTime() + 1000)
      })
      const results = ((await tx.exec()) ?? []).filter((_, i) => i % 2 === 0).map(([, n]) => Number(n))
      show(subjects.map((_, i) => (counted[i] ? results.shift()! : counts[i]!)))
    },
  }
}

/**
 * Throttles requests that cost something whatever their outcome (docs/security.md, "Links sent by mail"): a mail
 * sent (a reset link, a confirmation sent again: Mastodon's throttle_password_resets and
 * throttle_email_confirmations), a password changed. Every attempt counts, per client address (IPv6: its /64) and
 * per subject (an address, a user), in fixed windows in Redis; beyond a budget, 429 until its window ends.
 */
export async function guardRequests(
  ctx: AccountsContext,
  req: Request,
  res: Response,
  family: string,
  budgets: { ip?: { limit: number; period: number }; subject: { limit: number; period: number } },
  subject: string | undefined,
) {
  const config = ctx.config
  if (config.RATE_LIMITS === 'off') return
  const now = Date.now()
  const address = clientAddress(ctx, req) ?? 'unknown'
  const subjects = [
    ...(budgets.ip ? [{ name: `ip:${rateLimitSubject(address)}`, ...budgets.ip }] : []),
    ...(subject ? [{ name: `subject:${subject.toLowerCase()}`, ...budgets.subject }] : []),
  ].map((s) => {
    const periodMs = s.period * 1000
    const index = Math.floor(now / periodMs)
    return {
      key: `${config.REDIS_PREFIX}:throttle:${family}:${s.name}:${index}`,
      limit: s.limit,
      reset: new Date((index + 1) * periodMs),
    }
  })
  // One key per command (a pipeline, not MULTI): the keys may live in different Redis Cluster slots.
  const tx = ctx.redis.pipeline()
  for (const s of subjects) tx.incr(s.key).pexpireat(s.key, s.reset.getTime() + 1000)
  const counts = ((await tx.exec()) ?? []).filter((_, i) => i % 2 === 0).map(([, n]) => Number(n))
  const states = subjects.map((s, i) => ({ ...s, remaining: s.limit - counts[i]! }))
  if (!states.length) return
  const tightest = states.reduce((a, b) => (b.remaining < a.remaining ? b : a))
  const headers = {
    'X-RateLimit-Limit': String(tightest.limit),
    'X-RateLimit-Remaining': String(Math.max(0, tightest.remaining)),
    'X-RateLimit-Reset': iso6(tightest.reset),
  }
  res.set(headers)
  if (tightest.remaining < 0) {
    const retryAfter = String(Math.max(1, Math.ceil((tightest.reset.getTime() - now) / 1000)))
    throw new HttpError(429, 'Too many requests', {}, { ...headers, 'Retry-After': retryAfter })
  }
}
