import type { Request, Response } from 'express'
import { notFound } from '@roost/service'
import type { AccountsContext } from '../../context'
import { blockVariants } from '../../federation/domain-blocks'

/** Mastodon caches both answers a day, in its cache and in the HTTP one (docs/discovery.md, "Instance activity"). */
const CACHE_SECONDS = 24 * 3600
/** Mastodon's WEEKS_OF_ACTIVITY. */
export const WEEKS_OF_ACTIVITY = 12

/** The JSON cached under `name` for a day, else `build`'s, stored. */
async function cached(ctx: AccountsContext, name: string, build: () => Promise<unknown>): Promise<string> {
  const key = `${ctx.config.REDIS_PREFIX}instance:${name}`
  const hit = await ctx.redis.get(key)
  if (hit !== null) return hit
  const json = JSON.stringify(await build())
  await ctx.redis.set(key, json, 'EX', CACHE_SECONDS)
  return json
}

function send(res: Response, json: string) {
  res.set('Cache-Control', `max-age=${CACHE_SECONDS}, public`)
  res.type('application/json').send(json)
}

/**
 * The servers this one knows (Mastodon's Instance.searchable): the domains of remote accounts, without those a
 * domain block names (any severity, as Mastodon's) — here also the subdomains of a blocked domain, as Roost's blocks
 * cover them — sorted.
 */
export async function knownPeers(ctx: AccountsContext): Promise<string[]> {
  const domains: string[] = await ctx.db('accounts').whereNotNull('domain').distinct('domain').pluck('domain')
  const blocked = new Set<string>(await ctx.db('domain_blocks').pluck('domain'))
  return domains.filter((domain) => !blockVariants(domain).some((variant) => blocked.has(variant))).sort()
}

/** GET /api/v1/instance/peers — public, 404 when SHOW_PEERS is off (Mastodon's `peers_api_enabled`). */
export async function instancePeers(ctx: AccountsContext, _req: Request, res: Response) {
  if (!ctx.config.SHOW_PEERS) throw notFound()
  send(res, await cached(ctx, 'peers', () => knownPeers(ctx)))
}

/**
 * The last `WEEKS_OF_ACTIVITY` weeks, this one first, each from its Monday (UTC) as Mastodon's `beginning_of_week`:
 * local posts written, users who used the server (weekly_logins, and each user's last activity), and sign-ups;
 * every number a string, as Mastodon's.
 */
export async function weeklyActivity(ctx: AccountsContext) {
  const { rows } = await ctx.db.raw<{
    rows: { week: string; statuses: string; logins: string; registrations: string }[]
  }>(
    `WITH weeks AS (
       SELECT w::date AS week FROM generate_series(
         date_trunc('week', now() AT TIME ZONE 'UTC') - (:back * interval '1 week'),
         date_trunc('week', now() AT TIME ZONE 'UTC'), interval '1 week') AS w)
     SELECT extract(epoch FROM weeks.week::timestamp)::bigint AS week,
       (SELECT count(*) FROM statuses s JOIN accounts a ON a.id = s.account_id
         WHERE a.domain IS NULL AND s.uri IS NULL
           AND s.created_at >= weeks.week AT TIME ZONE 'UTC'
           AND s.created_at < (weeks.week + 7) AT TIME ZONE 'UTC') AS statuses,
       (SELECT count(*) FROM (
          SELECT user_id FROM weekly_logins l WHERE l.week = weeks.week
          UNION SELECT id FROM users u
           WHERE u.current_sign_in_at >= weeks.week AT TIME ZONE 'UTC'
             AND u.current_sign_in_at < (weeks.week + 7) AT TIME ZONE 'UTC') AS seen) AS logins,
       (SELECT count(*) FROM users u
         WHERE u.created_at >= weeks.week AT TIME ZONE 'UTC'
           AND u.created_at < (weeks.week + 7) AT TIME ZONE 'UTC') AS registrations
     FROM weeks ORDER BY 1 DESC`,
    { back: WEEKS_OF_ACTIVITY - 1 },
  )
  return rows.map((row) => ({
    week: String(row.week),
    statuses: String(row.statuses),
    logins: String(row.logins),
    registrations: String(row.registrations),
  }))
}

/** GET /api/v1/instance/activity — public, 404 when SHOW_ACTIVITY is off (Mastodon's `activity_api_enabled`). */
export async function instanceActivity(ctx: AccountsContext, _req: Request, res: Response) {
  if (!ctx.config.SHOW_ACTIVITY) throw notFound()
  send(res, await cached(ctx, 'activity', () => weeklyActivity(ctx)))
}
