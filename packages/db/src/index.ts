import knexFactory from 'knex'
import type { Knex } from 'knex'
import pg from 'pg'
import type { Page } from '@roost/service'
import { PreparedStatementsClient, UnnamedStatementsClient } from './prepared-statements'

export type { Knex }

// bigint (int8) columns come back as strings, which is what Mastodon's JSON wants for ids.
// count(*) is int8 too; callers convert counts with Number().
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v)

/**
 * A knex pool on one service's schema: unqualified table names resolve there first. Statements with bindings run
 * prepared (PreparedStatementsClient), or unnamed with `preparedStatements: false` (PREPARED_STATEMENTS=false, for
 * PgBouncer in transaction mode: docs/operations.md, "PgBouncer"). Either way a transaction's BEGIN goes with its
 * first statement (begin-with-first-statement.ts).
 */
export function createDatabase(
  url: string,
  schema: string,
  pool = { min: 0, max: 10 },
  options: { preparedStatements?: boolean } = {},
): Knex {
  return knexFactory({
    client: (options.preparedStatements === false
      ? UnnamedStatementsClient
      : PreparedStatementsClient) as unknown as typeof Knex.Client,
    connection: url,
    searchPath: [schema, 'public'],
    pool: { ...pool, idleTimeoutMillis: 30_000 },
    acquireConnectionTimeout: 10_000,
  })
}

/** How long a replica pool's connection to the primary (taken while the replica was down) lives before the replica is tried again. */
export const REPLICA_RETRY_MS = 5_000

/**
 * A knex pool on a streaming read replica (REPLICA_DATABASE_URL; docs/operations.md, "Read replica"), for reads
 * that tolerate a little lag. When the replica cannot be reached, a new connection goes to the primary instead
 * (`primaryUrl`), and is replaced after REPLICA_RETRY_MS, when the replica is tried again: a replica down slows
 * nothing down to an error. A statement outside a transaction that the replica fails at the connection level (it went
 * away mid-query, or over a pooled connection it had already dropped; it is shutting down or starting; a recovery
 * conflict cancelled the statement) runs once more on a connection of its own to the primary.
 */
export function createReplicaDatabase(
  replicaUrl: string,
  primaryUrl: string,
  schema: string,
  pool = { min: 0, max: 10 },
  options: { preparedStatements?: boolean } = {},
): Knex {
  const Base = (options.preparedStatements === false
    ? UnnamedStatementsClient
    : PreparedStatementsClient) as unknown as new (...args: unknown[]) => ReplicaClientBase
  class ReplicaClient extends Base {
    override async _acquireOnlyConnection(): Promise<PooledConnection> {
      try {
        return await super._acquireOnlyConnection()
      } catch {
        const connection = await this.connectToPrimary()
        connection.roostPrimarySince = Date.now()
        return connection
      }
    }

    /** knex's connect, on the primary: it reads the settings synchronously, so they are put back at once. */
    connectToPrimary(): Promise<PooledConnection> {
      const settings = this.connectionSettings
      this.connectionSettings = { connectionString: primaryUrl }
      try {
        return super._acquireOnlyConnection()
      } finally {
        this.connectionSettings = settings
      }
    }

    override async _query(connection: PooledConnection, query: unknown): Promise<unknown> {
      try {
        return await super._query(connection, query)
      } catch (err) {
        if (this.transacting || connection.roostPrimarySince !== undefined || !isReplicaGone(err)) throw err
        // Not through the pool: every pooled connection may be one the replica just dropped, held by a query doing this.
        const primary = await this.connectToPrimary()
        try {
          await this.setSchemaSearchPath(primary)
          return await super._query(primary, query)
        } finally {
          await this.destroyRawConnection(primary).catch(() => {})
        }
      }
    }

    override validateConnection(connection: PooledConnection): boolean {
      return (
        connection.roostPrimarySince === undefined ||
        Date.now() - connection.roostPrimarySince < REPLICA_RETRY_MS
      )
    }
  }
  return knexFactory({
    client: ReplicaClient as unknown as typeof Knex.Client,
    // A replica that does not answer is given up on quickly, for the primary.
    connection: { connectionString: replicaUrl, connectionTimeoutMillis: 2_000 },
    searchPath: [schema, 'public'],
    pool: { ...pool, idleTimeoutMillis: 30_000 },
    acquireConnectionTimeout: 10_000,
    // A replica going away closes its pooled connections, which knex notes on the console; that is expected here.
    log: { warn: (message: string) => void (/^Connection Error/.test(message) || console.warn(message)) },
  })
}

/** What createReplicaDatabase's client uses of knex's Postgres dialect. */
interface PooledConnection {
  roostPrimarySince?: number
}
interface ReplicaClientBase {
  connectionSettings: object
  transacting?: boolean
  _acquireOnlyConnection(): Promise<PooledConnection>
  validateConnection(connection: PooledConnection): boolean
  _query(connection: PooledConnection, query: unknown): Promise<unknown>
  setSchemaSearchPath(connection: PooledConnection): Promise<unknown>
  destroyRawConnection(connection: PooledConnection): Promise<void>
}

/**
 * Errors of a replica that is gone or cannot serve, rather than of the statement: admin shutdown (57P01), crash
 * shutdown (57P02), starting up (57P03), a statement cancelled for a recovery conflict (40001, on a hot standby), and
 * the driver's own errors for a connection that broke or was refused.
 */
const REPLICA_GONE_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '40001',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
])
function isReplicaGone(err: unknown): boolean {
  const { code, message } = err as { code?: string; message?: string }
  if (code !== undefined && REPLICA_GONE_CODES.has(code)) return true
  return /Connection terminated|not queryable|connection (error|ended)/i.test(message ?? '')
}

/**
 * The first row of a join of different tables (`SELECT a.*, b.* FROM a JOIN b …`), as one object per table in the
 * order their columns come: two rows in one round trip without listing either's columns, whose names may clash
 * (`id`). Columns of no table (expressions) that come together make one object of their own. Undefined when there is
 * no row.
 */
export async function firstRowPerTable<T extends object[]>(
  db: Knex,
  sql: string,
  bindings: readonly Knex.RawBinding[],
): Promise<T | undefined> {
  const result: pg.QueryResult<unknown[]> = await db.raw(sql, bindings).options({ rowMode: 'array' })
  const row = result.rows[0]
  if (!row) return undefined
  const objects: Record<string, unknown>[] = []
  let table: number | undefined
  result.fields.forEach((field, i) => {
    if (field.tableID !== table) objects.push({})
    table = field.tableID
    objects.at(-1)![field.name] = row[i]
  })
  return objects as T
}

export interface Migration {
  name: string
  up(db: Knex): Promise<void>
  down?(db: Knex): Promise<void>
}

/**
 * Applies a service's migrations, listed explicitly so that compiled and source runs agree. The schema and
 * its own `knex_migrations` table live together, so services never see each other's history.
 */
export async function migrateToLatest(db: Knex, schema: string, migrations: Migration[]): Promise<string[]> {
  await db.raw('CREATE SCHEMA IF NOT EXISTS ??', [schema])
  const [, applied] = (await db.migrate.latest({
    schemaName: schema,
    tableName: 'knex_migrations',
    migrationSource: {
      getMigrations: async () => migrations,
      getMigrationName: (m: Migration) => m.name,
      // Roost migrates forward only; knex insists on a `down`, so one that refuses stands in.
      getMigration: async (m: Migration) => ({
        up: m.up,
        down: m.down ?? (async () => Promise.reject(new Error(`${m.name} cannot be rolled back`))),
      }),
    },
  })) as [number, string[]]
  return applied
}

/** Migrates one service's schema in a database on a short-lived connection (the migrate command, tests). */
export async function migrateSchema(url: string, schema: string, migrations: Migration[]): Promise<string[]> {
  const db = createDatabase(url, schema, { min: 0, max: 1 })
  try {
    return await migrateToLatest(db, schema, migrations)
  } finally {
    await db.destroy()
  }
}

/**
 * Keyset pagination over an id column, newest first (Mastodon's `paginate_by_id`):
 * `max_id` → id < max_id; `since_id` → id > since_id; `min_id` → the page right after min_id, read ascending and
 * returned newest first.
 */
export async function paginate<T>(query: Knex.QueryBuilder, column: string, page: Page): Promise<T[]> {
  if (page.limit === 0) return []
  if (page.maxId) query.where(column, '<', page.maxId)
  if (page.minId) {
    query.where(column, '>', page.minId).orderBy(column, 'asc').limit(page.limit)
    return ((await query) as T[]).reverse()
  }
  if (page.sinceId) query.where(column, '>', page.sinceId)
  return (await query.orderBy(column, 'desc').limit(page.limit)) as T[]
}

/**
 * LISTENs to a channel on a connection of its own (a pooled one cannot hold a LISTEN), reconnecting after a
 * second when the connection breaks. `onNotify` also runs once each time the listener (re)connects, since
 * notifications sent while it was away are lost.
 */
export function listen(url: string, channel: string, onNotify: () => void, onError: (err: Error) => void) {
  let client: pg.Client | undefined
  let retry: NodeJS.Timeout | undefined
  let closed = false

  function reconnectLater(broken: pg.Client) {
    if (client !== broken) return
    client = undefined
    broken.end().catch(() => {})
    if (!closed) retry = setTimeout(connect, 1000)
  }

  function connect() {
    const c = new pg.Client({ connectionString: url })
    client = c
    c.on('notification', () => onNotify())
    const broken = (err: Error) => {
      if (closed) return
      onError(err)
      reconnectLater(c)
    }
    c.on('error', broken)
    c.connect()
      .then(() => c.query(`LISTEN ${c.escapeIdentifier(channel)}`))
      .then(() => onNotify())
      .catch(broken)
  }

  connect()
  return {
    async close() {
      closed = true
      clearTimeout(retry)
      const c = client
      client = undefined
      await c?.end().catch(() => {})
    },
  }
}

/** The SQL for Mastodon-style 64-bit time-sortable ids: milliseconds since the epoch << 16 | a sequence. */
export const SNOWFLAKE_FUNCTION_SQL = `
CREATE SEQUENCE IF NOT EXISTS snowflake_seq;
CREATE OR REPLACE FUNCTION snowflake_id() RETURNS bigint LANGUAGE sql AS $$
  SELECT (floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint << 16) | (nextval('snowflake_seq') % 65536)
$$;`
