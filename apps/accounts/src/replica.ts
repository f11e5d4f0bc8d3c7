import type { Knex } from '@roost/db'
import { createReplicaDatabase } from '@roost/db'
import type { AccountsConfig, AccountsWorkerConfig } from './config'
import type { AccountsContext, AccountsHandler } from './context'
import { SCHEMA } from './db/migrations'

/**
 * After a write, its author's routed reads go to the primary for this long (docs/operations.md, "Read replica"):
 * longer than a healthy replica's lag, so a client reading right after writing sees its write.
 */
export const STICKY_PRIMARY_MS = 5_000

/**
 * The knex for reads that tolerate a little lag: a pool on REPLICA_DATABASE_URL (which falls back to the primary
 * while the replica is down), or `primary` itself when no replica is configured.
 */
export function createReplica(config: AccountsConfig | AccountsWorkerConfig, primary: Knex): Knex {
  if (!config.REPLICA_DATABASE_URL) return primary
  return createReplicaDatabase(config.REPLICA_DATABASE_URL, config.DATABASE_URL, SCHEMA, undefined, {
    preparedStatements: config.PREPARED_STATEMENTS,
  })
}

const stickyKey = (ctx: AccountsContext, accountId: string) =>
  `${ctx.config.REDIS_PREFIX}:primary-reads:${accountId}`

/**
 * Where a routed read of `viewerId` (undefined: anonymous) runs: the replica, unless the viewer wrote within
 * STICKY_PRIMARY_MS (read-your-writes). Without a replica, the primary with no look-up.
 */
export async function readsFor(ctx: AccountsContext, viewerId: string | undefined): Promise<Knex> {
  if (ctx.replica === ctx.db || viewerId === undefined) return ctx.replica
  return (await ctx.redis.exists(stickyKey(ctx, viewerId))) ? ctx.db : ctx.replica
}

/** Called before any write of a signed-in account (every request but GET/HEAD): its routed reads stick to the primary. */
export async function stickToPrimary(ctx: AccountsContext, accountId: string): Promise<void> {
  if (ctx.replica === ctx.db) return
  await ctx.redis.set(stickyKey(ctx, accountId), '1', 'PX', STICKY_PRIMARY_MS)
}

/**
 * A handler of anonymous, lag-tolerant reads (the federation collections) run with `ctx.db` on the replica: every
 * query it makes goes there. Only for handlers that write nothing.
 */
export const onReplica =
  (fn: AccountsHandler): AccountsHandler =>
  (ctx, req, res) =>
    fn({ ...ctx, db: ctx.replica }, req, res)
