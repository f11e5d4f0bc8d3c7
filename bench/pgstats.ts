import { writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Knex } from '@roost/db'

/** Postgres options that load pg_stat_statements (BENCH_PG_STATS). */
export const PG_STATS_OPTIONS =
  '-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all -c track_io_timing=on'

/**
 * With BENCH_PG_STATS=<dir>: the statements Postgres ran during a scenario (pg_stat_statements, reset before it),
 * written to `<dir>/<name>.json`, per post (`per`), ordered by total time: which statements a post costs.
 */
export async function pgStatements(db: Knex, dir: string | undefined) {
  if (!dir) return { reset: async () => {}, dump: async (_name: string, _per: number) => {} }
  await db.raw('create extension if not exists pg_stat_statements')
  return {
    reset: async () => {
      await db.raw('select pg_stat_statements_reset()')
    },
    dump: async (name: string, per: number) => {
      const { rows } = await db.raw<{ rows: Record<string, unknown>[] }>(
        `select calls, round(total_exec_time::numeric, 1) as total_ms, round(mean_exec_time::numeric, 3) as mean_ms,
                rows, shared_blks_hit, shared_blks_read, shared_blks_dirtied, wal_records, query
           from pg_stat_statements
          where dbid = (select oid from pg_database where datname = current_database())
          order by total_exec_time desc limit 60`,
      )
      const total = rows.reduce((n, r) => n + Number(r.total_ms), 0)
      const calls = rows.reduce((n, r) => n + Number(r.calls), 0)
      writeFileSync(
        path.join(dir, `${name}.json`),
        JSON.stringify(
          {
            per,
            totalMsPerItem: total / Math.max(per, 1),
            callsPerItem: calls / Math.max(per, 1),
            statements: rows.map((r) => ({
              callsPerItem: Math.round((Number(r.calls) / Math.max(per, 1)) * 100) / 100,
              msPerItem: Math.round((Number(r.total_ms) / Math.max(per, 1)) * 1000) / 1000,
              ...r,
            })),
          },
          null,
          2,
        ) + '\n',
      )
    },
  }
}
