import net from 'node:net'
import type { Request } from 'express'
import { IP_SEVERITIES, IpRuleSet, trustedClientAddress } from '@roost/auth'
import type { IpSeverity } from '@roost/auth'
import type { AccountsContext } from '../context'
import type { IpBlockRow } from '../db/rows'

/** Rules that apply now: without expiry or expiring in the future. */
export const activeIpBlocks = (ctx: AccountsContext) =>
  ctx
    .db<IpBlockRow>('ip_blocks')
    .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', ctx.db.fn.now()))

/**
 * Publishes the active rules to Redis, where every gateway reads them (packages/auth ip-rules.ts). Called after
 * each change and at start-up, so a Redis that lost its data gets them back; the gateway drops expired rules by
 * itself, so nothing needs to run when a rule expires.
 */
export async function publishIpRules(ctx: AccountsContext): Promise<void> {
  const rows = await activeIpBlocks(ctx).select('ip', 'severity', 'expires_at')
  await new IpRuleSet(ctx.redis, ctx.config.REDIS_PREFIX).publish(
    rows.map((r) => ({ ip: r.ip, severity: r.severity, expiresAt: r.expires_at?.toISOString() ?? null })),
  )
}

/**
 * The strongest active IP rule covering `ip`, or undefined. For sign-up (POST /api/v1/accounts):
 * `sign_up_block` and `no_access` → 403 `{"error":"Forbidden"}` (the gateway already refuses both, this is
 * the service's own check); `sign_up_requires_approval` → create the user with `approved: false`.
 */
export async function ipSignUpSeverity(
  ctx: AccountsContext,
  ip: string | undefined,
): Promise<IpSeverity | undefined> {
  if (!ip || !net.isIP(ip)) return undefined
  const rows = await activeIpBlocks(ctx).andWhereRaw('ip >>= ?::inet', [ip]).select('severity')
  const ranks = rows.map((r) => IP_SEVERITIES.indexOf(r.severity))
  return ranks.length ? IP_SEVERITIES[Math.max(...ranks)] : undefined
}

/**
 * The client's address: the one the gateway resolved and signed, or the socket peer when the request did not
 * come through the gateway (packages/auth client-address.ts).
 */
export const clientAddress = (ctx: AccountsContext, req: Request): string | undefined =>
  trustedClientAddress(req, ctx.config.GATEWAY_SECRET)
