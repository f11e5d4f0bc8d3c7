// @ts-expect-error knex ships no types for its dialect classes; this is the query compiler of `client: 'pg'`.
import KnexPgQueryCompiler from 'knex/lib/dialects/postgres/query/pg-querycompiler.js'
import { BeginWithFirstStatementClient } from './begin-with-first-statement'
import type { CompiledQuery, PgClient } from './begin-with-first-statement'

/**
 * How many statements one pool names. Texts are not a fixed set (raw SQL built per call, a list of column tuples),
 * and each named one holds a plan in every backend that ran it. Texts past this many run unnamed, as before
 * (docs/performance.md, "Prepared statements").
 */
export const MAX_PREPARED_STATEMENTS = 256

/** Postgres refuses to run a prepared statement whose result columns a migration has changed since it was planned. */
const isStaleResultType = (err: unknown) =>
  (err as { code?: string }).code === '0A000' &&
  /cached plan must not change result type/.test((err as Error).message)

/** The names one pool's connections give statements: a text's name is the same on every connection. */
class StatementNames {
  private readonly names = new Map<string, string>()
  private named = 0

  nameOf(sql: string): string | undefined {
    const name = this.names.get(sql)
    if (name !== undefined || this.names.size >= MAX_PREPARED_STATEMENTS) return name
    return this.rename(sql)
  }

  rename(sql: string): string {
    const name = `roost_${this.named++}`
    this.names.set(sql, name)
    return name
  }
}

/** Per pool, found through the pool's config, which its transactions' clients share. */
const statementNames = new WeakMap<object, StatementNames>()
function namesOf(config: object): StatementNames {
  let names = statementNames.get(config)
  if (!names) statementNames.set(config, (names = new StatementNames()))
  return names
}

/** What knex's compiler knows of a `whereIn` / `whereNotIn`. */
interface WhereInStatement {
  column: unknown
  value: unknown
  not?: boolean
}

/** A value a list may hold as one array parameter; anything else (a subquery, raw SQL, undefined) stays as knex has it. */
const isPlainValue = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'

/**
 * knex's Postgres query compiler, with one change: `whereIn(column, [a, b, …])` is `column = ANY($1)`, the list one
 * array parameter, where knex writes `column in ($1, $2, …)`. Postgres plans both alike (it turns an IN list into
 * `= ANY` of an array), but the text of knex's form changes with the list's length, and every length was a statement
 * of its own to prepare: a page of 7 statuses and one of 8 did not share their statements (docs/performance.md,
 * "Prepared statements"). An empty list, a subquery and a list of column tuples stay as knex writes them.
 */
class ArrayListQueryCompiler extends KnexPgQueryCompiler {
  declare client: { parameter(value: unknown, builder: unknown, bindingsHolder: unknown): string }
  declare builder: unknown
  declare bindingsHolder: unknown
  declare _columnClause: (statement: WhereInStatement) => string

  constructor(client: unknown, builder: unknown, formatter: unknown) {
    super(client, builder, formatter)
  }

  whereIn(statement: WhereInStatement): string {
    const { value } = statement
    if (
      Array.isArray(statement.column) ||
      !Array.isArray(value) ||
      !value.length ||
      !value.every(isPlainValue)
    )
      return super.whereIn(statement)
    const list = `${this._columnClause(statement)} = ANY(${this.client.parameter(value, this.builder, this.bindingsHolder)})`
    return statement.not ? `NOT (${list})` : list
  }
}

/**
 * knex's Postgres dialect (each transaction's BEGIN sent with its first statement) with `= ANY` lists, running every
 * statement unnamed: for a pooler in transaction mode, which hands each transaction whichever server connection is
 * free, where a statement this connection named may not exist.
 */
export class UnnamedStatementsClient extends BeginWithFirstStatementClient {
  queryCompiler(builder: unknown, formatter: unknown) {
    return new ArrayListQueryCompiler(this, builder, formatter)
  }
}

/**
 * The same dialect, running every statement with bindings as a named prepared statement: each connection parses and
 * plans a statement once and then only binds and executes it, as Rails' prepared statements do for Mastodon.
 * Parsing and planning a short statement cost Postgres about as much as running it.
 */
export class PreparedStatementsClient extends UnnamedStatementsClient {
  declare config: object

  override async _query(connection: PgClient, query: CompiledQuery): Promise<CompiledQuery> {
    const names = namesOf(this.config)
    const name = query.bindings?.length && !query.options?.name ? names.nameOf(query.sql) : undefined
    if (name === undefined) return super._query(connection, query)
    try {
      return await super._query(connection, { ...query, options: { ...query.options, name } })
    } catch (err) {
      if (!isStaleResultType(err)) throw err
      // A migration changed a table under a running process. The text gets a new name, which every connection
      // prepares afresh (the old one stays behind, unused, until the connection closes). A statement on its own
      // had no effect and runs again; one in a transaction has aborted it and fails, as any error there does.
      names.rename(query.sql)
      if (this.transacting) throw err
      return this._query(connection, query)
    }
  }
}
