import type { Request, Response } from 'express'
import { Queue } from 'bullmq'
import { bullPrefix, CONSUMERS } from '@roost/events'
import type { QueueName } from '@roost/events'
import { adminDimensionsParams, adminMeasuresParams, adminRetentionParams, readParams } from '@roost/routes'
import { paramMissing, unprocessable } from '@roost/service'
import type { AccountsContext } from '../../../context'
import { VERSION } from '../../v2/instance'
import { requirePermission } from '../../../users/roles'

/**
 * The dashboard's numbers (docs/moderation.md, "Dashboard"), as Mastodon's /api/v1/admin/measures, dimensions and
 * retention: a day-by-day series per measure key between `start_at` and `end_at` (dates, inclusive), top lists per
 * dimension key, and sign-up cohorts. Keys Roost does not know are left out of the answer, as Mastodon does;
 * `roost_*` keys are Roost additions. Plus the queues' health (GET /api/v1/admin/queues), a Roost addition.
 */

const DAY_MS = 24 * 3600 * 1000
/** The longest range one call may span (a year and a day: a leap year's dashboard). */
const MAX_DAYS = 366

function readRange(p: { start_at?: string; end_at?: string }) {
  if (!p.start_at) throw paramMissing('start_at')
  if (!p.end_at) throw paramMissing('end_at')
  const start = Date.parse(p.start_at.slice(0, 10))
  const end = Date.parse(p.end_at.slice(0, 10))
  if (Number.isNaN(start) || Number.isNaN(end))
    throw unprocessable('Validation failed: start_at and end_at must be dates')
  if (end < start) throw unprocessable('Validation failed: end_at must not be before start_at')
  if ((end - start) / DAY_MS + 1 > MAX_DAYS)
    throw unprocessable(`Validation failed: at most ${MAX_DAYS} days`)
  const day = (t: number) => new Date(t).toISOString().slice(0, 10)
  return {
    start: day(start),
    end: day(end),
    previousStart: day(start - (end - start) - DAY_MS),
    previousEnd: day(start - DAY_MS),
  }
}

/**
 * A measure as SQL giving one row per day (`day`, `value`) between :start and :end; the total is their sum unless
 * `total` counts distinct things over the whole range.
 */
interface MeasureDef {
  unit?: string
  daily: string
  /** SQL of the range's total when it is not the sum of the days (distinct users). */
  total?: string
}

const MEASURES: Record<string, MeasureDef> = {
  // Local users who signed up.
  new_users: {
    daily: `SELECT created_at::date AS day, count(*) AS value FROM users
             WHERE created_at >= :start::date AND created_at < :end::date + 1 GROUP BY 1`,
  },
  // Roost records a user's latest activity and the weeks they were active (weekly_logins): a user counts on the
  // day of their latest activity; the total is the distinct users active in the range's weeks.
  active_users: {
    daily: `SELECT current_sign_in_at::date AS day, count(*) AS value FROM users
             WHERE current_sign_in_at >= :start::date AND current_sign_in_at < :end::date + 1 GROUP BY 1`,
    total: `SELECT count(DISTINCT user_id) AS value FROM weekly_logins
             WHERE week + 6 >= :start::date AND week <= :end::date`,
  },
  // Favourites, boosts and replies received by local posts (Mastodon's interactions).
  interactions: {
    daily: `SELECT day, count(*) AS value FROM (
              SELECT f.created_at::date AS day FROM favourites f JOIN statuses s ON s.id = f.status_id
                JOIN accounts a ON a.id = s.account_id AND a.domain IS NULL
               WHERE f.created_at >= :start::date AND f.created_at < :end::date + 1
              UNION ALL
              SELECT r.created_at::date FROM statuses r JOIN statuses s ON s.id = r.reblog_of_id
                JOIN accounts a ON a.id = s.account_id AND a.domain IS NULL
               WHERE r.created_at >= :start::date AND r.created_at < :end::date + 1
              UNION ALL
              SELECT r.created_at::date FROM statuses r JOIN statuses s ON s.id = r.in_reply_to_id
                JOIN accounts a ON a.id = s.account_id AND a.domain IS NULL
               WHERE r.created_at >= :start::date AND r.created_at < :end::date + 1
                 AND r.account_id <> s.account_id) i GROUP BY 1`,
  },
  opened_reports: {
    daily: `SELECT created_at::date AS day, count(*) AS value FROM reports
             WHERE created_at >= :start::date AND created_at < :end::date + 1 GROUP BY 1`,
  },
  resolved_reports: {
    daily: `SELECT action_taken_at::date AS day, count(*) AS value FROM reports
             WHERE action_taken_at >= :start::date AND action_taken_at < :end::date + 1 GROUP BY 1`,
  },
  // Roost addition: posts written on this server (the dashboard's "posts").
  roost_statuses: {
    daily: `SELECT s.created_at::date AS day, count(*) AS value FROM statuses s
              JOIN accounts a ON a.id = s.account_id AND a.domain IS NULL
             WHERE s.created_at >= :start::date AND s.created_at < :end::date + 1 AND s.reblog_of_id IS NULL
             GROUP BY 1`,
  },
}

async function measure(
  ctx: AccountsContext,
  key: string,
  def: MeasureDef,
  range: ReturnType<typeof readRange>,
) {
  const series = async (start: string, end: string) => {
    const { rows } = await ctx.db.raw<{ rows: { day: Date; value: string }[] }>(def.daily, { start, end })
    const byDay = new Map(rows.map((r) => [new Date(r.day).toISOString().slice(0, 10), Number(r.value)]))
    const days: { date: string; value: string }[] = []
    for (let t = Date.parse(start); t <= Date.parse(end); t += DAY_MS) {
      const day = new Date(t).toISOString().slice(0, 10)
      days.push({ date: `${day}T00:00:00Z`, value: String(byDay.get(day) ?? 0) })
    }
    const total = def.total
      ? Number((await ctx.db.raw<{ rows: { value: string }[] }>(def.total, { start, end })).rows[0]!.value)
      : days.reduce((n, d) => n + Number(d.value), 0)
    return { days, total }
  }
  const now = await series(range.start, range.end)
  const before = await series(range.previousStart, range.previousEnd)
  return {
    key,
    ...(def.unit ? { unit: def.unit } : {}),
    total: String(now.total),
    human_value: String(now.total),
    previous_total: String(before.total),
    data: now.days,
  }
}

/** POST /api/v1/admin/measures — `keys[]`, `start_at`, `end_at`. */
export async function measures(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const p = readParams(req, adminMeasuresParams)
  const range = readRange(p)
  const out = []
  for (const key of p.keys ?? [])
    if (Object.hasOwn(MEASURES, key)) out.push(await measure(ctx, key, MEASURES[key]!, range))
  res.json(out)
}

type DimensionRow = { key: string; human_key: string; value: string; unit?: string; human_value?: string }

const DIMENSIONS: Record<
  string,
  (ctx: AccountsContext, r: ReturnType<typeof readRange>, limit: number) => Promise<DimensionRow[]>
> = {
  // Languages of local posts in the range.
  languages: async (ctx, r, limit) => {
    const { rows } = await ctx.db.raw<{ rows: { key: string; value: string }[] }>(
      `SELECT coalesce(s.language, 'und') AS key, count(*) AS value FROM statuses s
         JOIN accounts a ON a.id = s.account_id AND a.domain IS NULL
        WHERE s.created_at >= :start::date AND s.created_at < :end::date + 1 AND s.reblog_of_id IS NULL
        GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT :limit`,
      { start: r.start, end: r.end, limit },
    )
    return rows.map((x) => ({ key: x.key, human_key: x.key, value: String(x.value) }))
  },
  // The apps new users signed up with (Mastodon's sources); "web" for sign-ups without one.
  sources: async (ctx, r, limit) => {
    const { rows } = await ctx.db.raw<{ rows: { key: string; value: string }[] }>(
      `SELECT coalesce(a.name, 'web') AS key, count(*) AS value FROM users u
         LEFT JOIN oauth_applications a ON a.id = u.created_by_application_id
        WHERE u.created_at >= :start::date AND u.created_at < :end::date + 1
        GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT :limit`,
      { start: r.start, end: r.end, limit },
    )
    return rows.map((x) => ({ key: x.key, human_key: x.key, value: String(x.value) }))
  },
  // Other servers by the posts received from them in the range.
  servers: async (ctx, r, limit) => {
    const { rows } = await ctx.db.raw<{ rows: { key: string; value: string }[] }>(
      `SELECT a.domain AS key, count(*) AS value FROM statuses s JOIN accounts a ON a.id = s.account_id
        WHERE a.domain IS NOT NULL AND s.created_at >= :start::date AND s.created_at < :end::date + 1
        GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT :limit`,
      { start: r.start, end: r.end, limit },
    )
    return rows.map((x) => ({ key: x.key, human_key: x.key, value: String(x.value) }))
  },
  software_versions: async (ctx) => {
    const pg = String((await ctx.db.raw<{ rows: { v: string }[] }>('SHOW server_version')).rows[0]!.v)
    const info = await ctx.redis.info('server')
    const redis = /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? ''
    return [
      { key: 'roost', human_key: 'Roost', value: VERSION, human_value: VERSION },
      {
        key: 'postgresql',
        human_key: 'PostgreSQL',
        value: pg.split(' ')[0]!,
        human_value: pg.split(' ')[0]!,
      },
      { key: 'redis', human_key: 'Redis', value: redis, human_value: redis },
      { key: 'node', human_key: 'Node.js', value: process.versions.node, human_value: process.versions.node },
    ]
  },
  space_usage: async (ctx) => {
    const pg = Number(
      (await ctx.db.raw<{ rows: { n: string }[] }>('SELECT pg_database_size(current_database()) AS n'))
        .rows[0]!.n,
    )
    const memory = Number(/used_memory:(\d+)/.exec(await ctx.redis.info('memory'))?.[1] ?? 0)
    // Roost does not record file sizes: the local attachments are counted instead.
    const media = Number(
      (
        await ctx.db.raw<{ rows: { n: string }[] }>(
          `SELECT count(*) AS n FROM media_attachments m JOIN accounts a ON a.id = m.account_id AND a.domain IS NULL`,
        )
      ).rows[0]!.n,
    )
    const bytes = (key: string, human: string, value: number) => ({
      key,
      human_key: human,
      value: String(value),
      unit: 'bytes',
      human_value: `${(value / 1024 / 1024).toFixed(1)} MB`,
    })
    return [
      bytes('postgresql', 'PostgreSQL', pg),
      bytes('redis', 'Redis', memory),
      bytes('media', 'Media files', media),
    ]
  },
}

/** POST /api/v1/admin/dimensions — `keys[]`, `start_at`, `end_at`, `limit` (default 10). */
export async function dimensions(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const p = readParams(req, adminDimensionsParams)
  const range = readRange(p)
  const limit = Math.min(Math.max(p.limit ?? 10, 1), 100)
  const out = []
  for (const key of p.keys ?? [])
    if (Object.hasOwn(DIMENSIONS, key)) out.push({ key, data: await DIMENSIONS[key]!(ctx, range, limit) })
  res.json(out)
}

/**
 * POST /api/v1/admin/retention — `start_at`, `end_at`, `frequency` (day | month): for each cohort of local users
 * who signed up in a period, the share active in each period since. Activity is what Roost records, the weeks a
 * user was active (weekly_logins): a user is active in a period when one of their active weeks overlaps it.
 */
export async function retention(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  const p = readParams(req, adminRetentionParams)
  const range = readRange(p)
  const unit = p.frequency === 'month' ? 'month' : 'day'
  const { rows } = await ctx.db.raw<{ rows: { cohort: Date; period: Date; size: string; active: string }[] }>(
    `WITH periods AS (
       SELECT generate_series(date_trunc(:unit, :start::date), date_trunc(:unit, :end::date), ('1 ' || :unit)::interval)::date AS p),
     cohorts AS (
       SELECT date_trunc(:unit, u.created_at)::date AS cohort, u.id FROM users u
        WHERE u.created_at >= date_trunc(:unit, :start::date) AND u.created_at < :end::date + 1)
     SELECT c.p AS cohort, q.p AS period,
            (SELECT count(*) FROM cohorts WHERE cohort = c.p) AS size,
            (SELECT count(*) FROM cohorts k WHERE k.cohort = c.p AND EXISTS (
               SELECT 1 FROM weekly_logins w WHERE w.user_id = k.id
                AND w.week + 6 >= q.p AND w.week < (q.p + ('1 ' || :unit)::interval)::date)) AS active
       FROM periods c JOIN periods q ON q.p >= c.p ORDER BY 1, 2`,
    { unit, start: range.start, end: range.end },
  )
  const cohorts = new Map<string, { period: string; frequency: string; data: object[] }>()
  for (const r of rows) {
    const period = `${new Date(r.cohort).toISOString().slice(0, 10)}T00:00:00Z`
    const cohort = cohorts.get(period) ?? { period, frequency: unit, data: [] }
    cohorts.set(period, cohort)
    const size = Number(r.size)
    const active = Number(r.active)
    cohort.data.push({
      date: `${new Date(r.period).toISOString().slice(0, 10)}T00:00:00Z`,
      rate: size ? active / size : 0,
      value: String(active),
    })
  }
  res.json([...cohorts.values()])
}

const queuesOf = new WeakMap<AccountsContext, Map<string, Queue>>()

/**
 * GET /api/v1/admin/queues — a Roost addition (docs/moderation.md, "Dashboard"): each BullMQ queue's jobs waiting,
 * running, delayed (retries and timers) and failed, the federation backlog (deliveries still to make) and the
 * servers treated as unavailable. Needs `view_devops`, as Mastodon's Sidekiq dashboard; Bull Board checks it too.
 */
export async function queueHealth(ctx: AccountsContext, req: Request, res: Response) {
  await requirePermission(ctx, req)
  let queues = queuesOf.get(ctx)
  if (!queues) {
    queues = new Map()
    queuesOf.set(ctx, queues)
  }
  const names = [...new Set(Object.values(CONSUMERS).flat())] as QueueName[]
  const out = []
  for (const name of names) {
    let queue = queues.get(name)
    if (!queue) {
      queue = new Queue(name, { connection: ctx.redis, prefix: bullPrefix(ctx.config.REDIS_PREFIX) })
      queues.set(name, queue)
    }
    const c = await queue.getJobCounts(
      'waiting',
      'active',
      'delayed',
      'failed',
      'prioritized',
      'waiting-children',
    )
    out.push({
      name,
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0) + (c['waiting-children'] ?? 0),
      active: c.active ?? 0,
      delayed: c.delayed ?? 0,
      failed: c.failed ?? 0,
    })
  }
  const deliveries = out.find((q) => q.name === 'deliveries')
  const [{ n: unavailable }] = await ctx
    .db('delivery_failures')
    .whereNotNull('unavailable_since')
    .count<{ n: string }[]>('* as n')
  res.json({
    queues: out,
    federation: {
      backlog: deliveries ? deliveries.waiting + deliveries.active + deliveries.delayed : 0,
      unavailable_servers: Number(unavailable),
    },
  })
}
